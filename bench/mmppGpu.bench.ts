/**
 * The MMPP model of bench/mmpp.bench.ts (4 phases, B = 128, S = 2,000: 8,004 states (s, j))
 * on the GPU against the CPU: one f32 Bellman sweep and one f32 evaluation sweep of
 * bellman_sweep.wgsl (src/solve/gpu/rvi.ts, a batch of one) against the f64 CPU Bellman step
 * (bellmanStep), on whatever adapter this machine has (Mesa llvmpipe, a software
 * rasteriser, where there is no GPU). `npm run bench -- --only mmppGpu` runs just this case.
 *
 * GPU times are slopes between submits of different sweep counts (the same model, buffers
 * and pipelines), so they leave out the upload, the readback and the compile. A whole GPU
 * solve (f32 stage + f64 polish) at S = 2,000 needs hundreds of sweeps: on llvmpipe that is
 * far beyond a benchmark run, so it is not timed here (docs/mmpp.md gives the estimate).
 */
import { bellmanStep, compileModel, validateScenario } from '../src/index.js';
import { acquireGpu, batchedRvi, readFlags, releaseGpu, type GpuFlags } from '../src/solve/gpu/index.js';
import { mmppBenchScenario, RATES } from './mmppModel.js';
import { fmt, median, timeRuns } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const S = ctx.quick ? 500 : 2000;
  const { params } = validateScenario(mmppBenchScenario(S));
  const proc = params.arrivalProcess!;
  const M = proc.phases;
  const n = (S + 1) * M;
  const model = compileModel(params, S);
  const gpu = await acquireGpu().catch(() => undefined);
  if (!gpu) return { name: 'MMPP on the GPU vs CPU', rows: [], notes: ['No WebGPU adapter on this machine: nothing measured.'] };
  ctx.log(`mmppGpu: ${M} phases, B = 128, S = ${S}: ${n} states on ${gpu.adapterName}`);
  try {
    // Values like relative values (increasing, convex), so the sweeps do representative work.
    const h = new Float64Array(n);
    for (let s = 1; s <= S; s++) for (let j = 0; j < M; j++) h[s * M + j] = h[(s - 1) * M + j] + s * model.costSlope;
    const flags = (evalSweeps: number, total: number) => ({
      ...readFlags(),
      BATCHWISE_GPU_EVAL_SWEEPS: evalSweeps,
      BATCHWISE_GPU_CYCLES_PER_CHECK: 1,
      BATCHWISE_GPU_MAX_SWEEPS: total,
      BATCHWISE_GPU_STABLE_CHECKS: 1e9,
      BATCHWISE_GPU_STALL_CHECKS: 1e9,
    });
    const run = (f: GpuFlags) => batchedRvi(gpu, [{ model, warm: { values: h }, tolerance: 1e-15 }], { flags: f });
    const stage = (evalSweeps: number, total: number) => () => run(flags(evalSweeps, total));
    // One warm-up (pipeline compile), then: 1 Bellman sweep; k Bellman sweeps (k submits of
    // one sweep each would add k readbacks, so they run as one chain of k cycles instead);
    // e evaluation sweeps + 1 Bellman sweep in one submit.
    const k = 3;
    const e = 8;
    const one = await timeRuns(stage(0, 1), 1, 1);
    const many = await timeRuns(async () => {
      const f = { ...flags(0, k), BATCHWISE_GPU_CYCLES_PER_CHECK: k };
      await run(f);
    }, 1, 0);
    const evals = await timeRuns(stage(e, e + 1), 1, 0);
    const gpuBellman = (median(many) - median(one)) / (k - 1);
    const gpuEval = (median(evals) - median(one)) / e;
    const gap = new Float64Array(n);
    const pol = new Int32Array(n);
    const cpu = await timeRuns(() => bellmanStep(model, h, gap, pol), 3, 1);
    const cpuBellman = median(cpu);
    const rows = [
      { step: 'one Bellman sweep (up to 129 actions per state)', 'GPU f32 ms': fmt(gpuBellman), 'CPU f64 ms': fmt(cpuBellman), 'GPU/CPU': fmt(gpuBellman / cpuBellman) },
      { step: 'one evaluation sweep (the stored action only)', 'GPU f32 ms': fmt(gpuEval), 'CPU f64 ms': '', 'GPU/CPU': '' },
      { step: 'submit of 1 sweep + upload + readback of h and policy', 'GPU f32 ms': fmt(median(one)), 'CPU f64 ms': '', 'GPU/CPU': '' },
    ];
    return {
      name: 'MMPP on the GPU vs CPU',
      machineNote:
        `4-phase MMPP (rates ${RATES.join(', ')} /s), B = 128, deterministic service (V100 fit), S = ${S}: ${n} states, ` +
        `pmf ${model.pmf.length} + tail ${model.tailCoef.length} coefficients. Adapter: ${gpu.adapterName} (${gpu.kind}, ${gpu.featureLevel} feature level). CPU: one thread.`,
      rows,
      notes: [
        `GPU: slopes between a 1-sweep run and a ${k}-sweep / ${e} evaluation + 1 Bellman sweep run (after one warm-up run that compiles the pipelines); single runs (minutes on a software adapter). CPU: median of 3 bellmanStep calls after one warm-up.`,
        'A whole GPU solve at this size (hundreds of f32 sweeps, then the f64 polish) is not timed: see docs/mmpp.md.',
      ],
    };
  } finally {
    await releaseGpu();
  }
}
