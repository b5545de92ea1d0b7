/**
 * GPU against CPU (docs/gpu.md): the raw Bellman sweep across model sizes, whole single
 * solves (f32 stage + f64 polish against CPU policy iteration) and batches of different
 * scenarios (one batched GPU solve against solving them one by one on the CPU), on whatever
 * adapter this machine has (Mesa llvmpipe where there is no GPU). The crossover, if any,
 * feeds the AUTO rule (src/solve/gpu/autoRule.ts).
 */
import { buildArrivalTable, compileModel, policyIteration, solveScenario, validateScenario, type CompiledModel, type Scenario } from '../src/index.js';
import { bellmanStep } from '../src/policy/greedy.js';
import { cpuPolicyIteration } from '../src/solve/cpu/pi.js';
import { acquireGpu, batchedRvi, directStage, gpuSolver, readFlags, releaseGpu, sweepWork, type GpuContext } from '../src/solve/gpu/index.js';
import { solveScenariosOnGpu } from '../src/solve/gpuBatch.js';
import { gpuSweepMs } from './gpuSweep.js';
import { fmt, median, timeRuns } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

const FIT = { perItem: 0.0001438, base: 0.0018874 };

function scenario(load: number, B: number, distribution: Scenario['serviceTime']['distribution'] = 'DETERMINISTIC', powerWeight = 1e-4): Scenario {
  const capacity = B / (FIT.perItem * B + FIT.base);
  return {
    arrivalRate: load * capacity,
    maxBatchSize: B,
    serviceTime: { linear: { ...FIT }, distribution, ...(distribution === 'GAMMA' ? { cv: 0.7 } : {}) },
    power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
    objective: { latencyWeight: 1, powerWeight },
  };
}

function model(s: Scenario, S: number): CompiledModel {
  const v = validateScenario(s);
  return compileModel(v.params, S, buildArrivalTable(v.params));
}

function work(m: CompiledModel): number {
  return sweepWork([{ states: m.S + 1, batch: m.B, pmfWidth: m.upReach + m.B }]);
}

/** Milliseconds per Bellman sweep: GPU (k sweeps in one submit, minus a 1-sweep submit) and CPU f64. */
async function sweepRow(ctx: GpuContext, m: CompiledModel, reps: number): Promise<Record<string, string | number>> {
  // Enough sweeps that the slope stands out of the overhead, few where one sweep is slow.
  const k = Math.max(4, Math.min(64, Math.round(2e7 / work(m))));
  const job = [{ model: m, tolerance: 1e-15 }];
  const { perSweep: gpuSweep, oneSubmit } = await gpuSweepMs((flags) => batchedRvi(ctx, job, { flags }), k, reps);
  const h = new Float64Array(m.S + 1);
  for (let s = 1; s <= m.S; s++) h[s] = h[s - 1] + s * m.costSlope;
  const gap = new Float64Array(m.S + 1);
  const pol = new Int32Array(m.S + 1);
  const cpu = await timeRuns(() => bellmanStep(m, h, gap, pol), Math.max(5, reps * 5), 2);
  return {
    'S + 1': m.S + 1,
    B: m.B,
    'work/sweep': fmt(work(m)),
    'GPU ms/sweep': fmt(gpuSweep),
    'CPU f64 ms/sweep': fmt(median(cpu)),
    'GPU/CPU': fmt(gpuSweep / median(cpu)),
    'submit+readback ms': fmt(oneSubmit),
  };
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const reps = ctx.quick ? 1 : 3; // llvmpipe is slow: few repetitions, medians still after a warm-up
  const gpu = await acquireGpu().catch(() => undefined);
  if (!gpu) return { name: 'GPU vs CPU', rows: [], notes: ['No WebGPU adapter on this machine (install Mesa and set EGL_PLATFORM=surfaceless for llvmpipe): skipped.'] };
  const rows: BenchSection['rows'] = [];
  const notes: string[] = [];
  try {
    // 1. The raw sweep across sizes (states × actions × pmf width).
    const sizes: Array<[number, number, number]> = ctx.quick
      ? [[0.6, 32, 128], [0.9, 32, 512]]
      : [[0.6, 8, 64], [0.6, 32, 128], [0.9, 32, 512], [0.9, 64, 1024], [0.95, 128, 2048]];
    for (const [load, B, S] of sizes) {
      ctx.log(`sweep B=${B} S=${S}`);
      rows.push({ part: 'sweep', ...(await sweepRow(gpu, model(scenario(load, B), S), reps)) });
    }
    // 2. Whole single solves at a fixed S: GPU stage + f64 polish against CPU policy iteration.
    const solver = gpuSolver(directStage(readFlags()), cpuPolicyIteration);
    const singles: Array<[string, Scenario, number]> = ctx.quick
      ? [['spec λ=4000 w_pow=1e-3', scenario(4000 / (32 / (FIT.perItem * 32 + FIT.base)), 32, 'DETERMINISTIC', 1e-3), 141]]
      : [
          ['spec λ=4000 w_pow=1e-3', scenario(4000 / (32 / (FIT.perItem * 32 + FIT.base)), 32, 'DETERMINISTIC', 1e-3), 141],
          ['B=32 load 0.9', scenario(0.9, 32), 512],
        ];
    for (const [name, s, S] of singles) {
      ctx.log(`single ${name}`);
      const m = model(s, S);
      const opts = { tolerance: 1e-9, maxIterations: 0 };
      let g: Awaited<ReturnType<typeof solver.solve>> | undefined;
      let c: Awaited<ReturnType<typeof policyIteration>> | undefined;
      const gpuMs = await timeRuns(async () => (g = await solver.solve(m, opts)), reps, 1);
      const cpuMs = await timeRuns(async () => (c = await policyIteration(m, opts)), reps, 1);
      rows.push({
        part: 'single solve',
        scenario: name,
        'S + 1': S + 1,
        B: m.B,
        'work/sweep': fmt(work(m)),
        'GPU+polish ms': fmt(median(gpuMs)),
        'GPU sweeps': g!.gpuIterations ?? 0,
        'polish steps': g!.polishSteps ?? 0,
        'CPU PI ms': fmt(median(cpuMs)),
        'CPU PI steps': c!.iterations,
        'GPU/CPU': fmt(median(gpuMs) / median(cpuMs)),
        'same policy': String(g!.policy.every((a, i) => a === c!.policy[i])),
      });
    }
    // 3. Batches of different scenarios, end to end (automatic S, exact evaluation).
    const sizesN = ctx.quick ? [1, 8] : [1, 8, 32];
    for (const n of sizesN) {
      ctx.log(`batch of ${n}`);
      const batch = Array.from({ length: n }, (_, i) => scenario(0.3 + (0.4 * i) / Math.max(1, n - 1), 4 + (i % 5) * 4, (['DETERMINISTIC', 'EXPONENTIAL', 'GAMMA'] as const)[i % 3]));
      const gpuMs = await timeRuns(async () => {
        for await (const item of solveScenariosOnGpu(batch)) if ('error' in item) throw item.error;
      }, reps, 1);
      const cpuMs = await timeRuns(async () => {
        for (const s of batch) await solveScenario(s, { backend: 'CPU', percentiles: false });
      }, reps, 1);
      rows.push({ part: 'batch', scenarios: n, 'GPU batch ms': fmt(median(gpuMs)), 'CPU one by one ms': fmt(median(cpuMs)), 'GPU/CPU': fmt(median(gpuMs) / median(cpuMs)) });
    }
    notes.push(
      'GPU/CPU < 1 means the GPU is faster. The single-solve and batch rows include the f64 polish on the CPU, which the GPU result always goes through.',
      'sweep: GPU ms/sweep is the slope between a 64-sweep and a 1-sweep submit (dispatch and readback overhead excluded); CPU is bellmanStep in f64 on one core.',
    );
  } finally {
    await releaseGpu();
  }
  return { name: 'GPU vs CPU', machineNote: `Adapter: ${gpu.adapterName} (${gpu.kind}, ${gpu.featureLevel} feature level).`, rows, notes };
}
