/**
 * The joint model's sweep on whatever WebGPU adapter this machine has (Mesa llvmpipe where there is
 * no GPU) beside the CPU's f64 sweep on the same model, and a whole certified solve through the
 * GPU's f32 stage against the CPU alone: the measurements behind the AUTO rule for several classes
 * (docs/gpu.md).
 */
import { classesOperator, sweepWork } from '../src/model/classes/bellman.js';
import { compileClasses, type ClassesModel } from '../src/model/classes/compile.js';
import { validateClassesScenario } from '../src/model/classes/validate.js';
import { solveClassesScenario } from '../src/solve/classes/solveClasses.js';
import { acquireGpu, type GpuContext, type GpuFlags } from '../src/solve/gpu/index.js';
import type { RealKind } from '../src/solve/gpu/df64.js';
import { axisSumsFit } from '../src/solve/gpu/jointAxis.js';
import { batchedJointRvi } from '../src/solve/gpu/jointRvi.js';
import { jointStepOnGpu } from '../src/solve/gpu/jointStep.js';
import { bindingLimit } from '../src/solve/gpu/stageLoop.js';
import { gpuSweepMs } from './gpuSweep.js';
import { fmt } from './stats.js';
import { scenario, sweepMsOf } from './classes.bench.js';
import type { BenchContext, BenchSection } from './types.js';

/**
 * The GPU's Bellman sweep beside the CPU's f64 one (`cpu` ms): the f32 stage's (lumped tops, within
 * the stage loop), or (`real`) one step of the model itself in f32 or df64 (jointStep.ts, the
 * certifying step's arithmetic: extrapolated tops, bounds reduced on the device).
 */
async function sweepRow(gpu: GpuContext, model: ClassesModel, reps: number, cpu: number, real?: RealKind): Promise<Record<string, string | number>> {
  // A Bellman sweep forms the product kernels' per-axis sums as the CPU does (classes_axis.wgsl), unless they pass the binding limit.
  const gpuWork = sweepWork(model, !axisSumsFit(model, bindingLimit(gpu) / (real === 'df64' ? 2 : 1)));
  const k = Math.max(4, Math.min(32, Math.round((real === 'df64' ? 4e6 : 4e7) / gpuWork)));
  const h = new Float64Array(model.states);
  const run = real
    ? (flags: GpuFlags) => jointStepOnGpu(gpu, model, h, real, flags.BATCHWISE_GPU_MAX_SWEEPS)
    : (flags: GpuFlags) => batchedJointRvi(gpu, [{ model, tolerance: 1e-15 }], { flags });
  const { perSweep, oneSubmit } = await gpuSweepMs(run, k, reps);
  return {
    part: real ? `model step, ${real}` : 'sweep',
    S: `(${Array.from(model.S).join(', ')})`,
    states: model.states,
    'GPU multiply-adds/sweep': gpuWork,
    'GPU ms/sweep': fmt(perSweep),
    'GPU sweeps/s': fmt(1000 / perSweep),
    'CPU multiply-adds/sweep': sweepWork(model),
    'CPU ms/sweep': fmt(cpu),
    'CPU sweeps/s': fmt(1000 / cpu),
    'GPU/CPU time': fmt(perSweep / cpu),
    'submit+readback ms': fmt(oneSubmit),
  };
}

/** A whole solve at a fixed box on each backend: time, sweeps on each side, the certified width. */
async function solveRow(raw: (S: number) => object, S: number, backend: 'CPU' | 'GPU'): Promise<Record<string, string | number>> {
  const t = performance.now();
  const r = await solveClassesScenario({ ...raw(S), solver: { tolerance: 1e-9, backend } });
  return {
    part: `solve on ${backend}`,
    S: `(${S}, ${S})`,
    states: r.solver.states,
    'seconds': fmt((performance.now() - t) / 1000),
    'f32 GPU sweeps': r.solver.gpuIterations ?? 0,
    'f64 CPU sweeps': r.solver.iterations,
    'relative width': ((r.averageCostUpper - r.averageCostLower) / r.averageCostLower).toExponential(2),
    method: r.solver.method,
  };
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const { quick, log } = ctx;
  const params = (S: number) => validateClassesScenario(scenario(S)).params;
  const raw = scenario;
  const gpu = await acquireGpu().catch(() => undefined);
  if (!gpu) return { name: 'classes on the GPU', rows: [], notes: ['No WebGPU adapter on this machine: skipped.'] };
  // llvmpipe runs the joint sweep slowly: small boxes there; the (300, 300) on a hardware adapter.
  const sizes = quick ? [20] : gpu.kind === 'hardware' ? [100, 300] : [30, 60];
  const rows: BenchSection['rows'] = [];
  for (const S of sizes) {
    log(`classes GPU sweep S = (${S}, ${S})`);
    const model = compileClasses(params(S), [S, S]);
    // After 3 warm-up sweeps, so the JIT has compiled it.
    const cpu = await sweepMsOf(classesOperator(model), 5, 3);
    for (const real of [undefined, 'f32', 'df64'] as const) rows.push(await sweepRow(gpu, model, quick ? 1 : 2, cpu, real));
  }
  const S = sizes[sizes.length - 1];
  for (const backend of ['CPU', 'GPU'] as const) {
    log(`classes solve on ${backend} at S = (${S}, ${S})`);
    rows.push(await solveRow(raw, S, backend));
  }
  return {
    name: 'classes on the GPU',
    rows,
    notes: [
      `Adapter: ${gpu.adapterName} (${gpu.kind}). GPU ms/sweep = (a submit of k sweeps − a submit of one) / (k − 1), so upload and readback drop out; the CPU sweep is one thread, f64.`,
      'A GPU Bellman sweep forms a product kernel’s per-axis sums as the CPU does (classes_axis.wgsl, one dispatch per axis after classes_pad; deterministic service, as here), so both work columns count the same multiply-adds (before 2026-12-03 the GPU summed every kernel by its rows: 4907694 at (60, 60)); evaluation sweeps still sum the rows of the one action they serve. A solve’s f32 sweeps are nearly all evaluations (one Bellman sweep in BATCHWISE_GPU_EVAL_SWEEPS + 1 in the stage, none in the refinement), so its time moves little with the Bellman sweep’s.',
      'model step, f32 / df64: one Bellman step of the model itself (extrapolated tops, as the certifying f64 step on the CPU) with its Odoni bounds reduced on the device, src/solve/gpu/jointStep.ts: the same kernels compiled over f32 or over double-float (two f32 a value, shaders/lib/real_df64.wgsl); the f32 stage’s sweep (row sweep) is lumped and runs inside the stage loop. No solve uses the df64 step (docs/gpu.md, “df64”).',
      'A solve on the GPU is the f32 stage (modified policy iteration, lumped overflow), the f64 refinement (per round one f64 step on the CPU and an f32 evaluation of the correction on the GPU, src/solve/classes/refine.ts), then the CPU’s f64 RVI from the refined values; f64 CPU sweeps counts the refinement’s steps and the RVI’s; the certificate is always the f64 one.',
    ],
  };
}
