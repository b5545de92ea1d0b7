/**
 * The joint multi-class model (docs/model.md §10) on the CPU in f64: two classes at
 * S = (300, 300), 90,601 states. Times the compile, one Bellman sweep (median of 3, reported as
 * sweeps per second with the sweep's multiply-adds and their rate), and the whole certified
 * relative value iteration at that fixed S (one run: it takes long).
 */
import { classesOperator, sweepWork } from '../src/model/classes/bellman.js';
import { compileClasses } from '../src/model/classes/compile.js';
import { validateClassesScenario } from '../src/model/classes/validate.js';
import { ParallelSweeps, sweepThreads } from '../src/model/classes/parallelStep.js';
import { valueIterate } from '../src/solve/cpu/rvi.js';
import type { BellmanOperator } from '../src/solve/operator.js';
import os from 'node:os';
import { fmt, median, timeRuns } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

/** The two-class worked case at a fixed box (also the classes-on-GPU section's). */
export const scenario = (S: number) => ({
  classes: [
    { name: 'small', arrivalRate: 300, maxBatchSize: 4, serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 } }, power: { busyLinear: { perItem: 3, base: 80 } }, latencyWeight: 1, maxQueue: S },
    { name: 'large', arrivalRate: 80, maxBatchSize: 2, serviceTime: { linear: { perItem: 0.0005, base: 0.004 } }, power: { busyLinear: { perItem: 10, base: 120 } }, latencyWeight: 2, maxQueue: S },
  ],
  power: { idleWatts: 40 },
  objective: { powerWeight: 1e-4 },
});

/** `reps` passes of acc += a[i]·(b[i] − c): locals only, so the JIT keeps acc in a register. */
function maddPasses(a: Float64Array, b: Float64Array, c: number, reps: number): number {
  let acc = 0;
  const n = a.length;
  for (let r = 0; r < reps; r++) for (let i = 0; i < n; i++) acc += a[i] * (b[i] - c);
  return acc;
}

/**
 * Multiply-adds per second of that plain f64 loop over cache-resident arrays, one thread: the
 * practical limit the joint sweep (the same operation, one thread) is set against.
 */
async function plainMaddRate(): Promise<number> {
  const n = 1 << 14;
  const a = Float64Array.from({ length: n }, (_, i) => 1 / (i + 1));
  const b = Float64Array.from({ length: n }, (_, i) => i * 1e-3);
  let sink = maddPasses(a, b, 0.5, 500);
  const times = await timeRuns(() => (sink += maddPasses(a, b, 0.5, 2000)), 5, 0);
  if (!Number.isFinite(sink)) throw new Error('unreachable: the sums are finite');
  return (2000 * n) / (median(times) / 1000);
}

/** Milliseconds of one Bellman step of `op` at h = 0: the median of `reps` after `warmup` unmeasured ones. */
export async function sweepMsOf(op: BellmanOperator, reps: number, warmup: number): Promise<number> {
  const h = new Float64Array(op.states);
  const gap = new Float64Array(op.states);
  const policy = new Int32Array(op.states);
  return median(await timeRuns(() => op.step(h, gap, policy), reps, warmup));
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const S = ctx.quick ? 100 : 300;
  const { params } = validateClassesScenario(scenario(S));
  let t = performance.now();
  const model = compileClasses(params, [S, S]);
  const compileMs = performance.now() - t;
  const sweepMs = await sweepMsOf(classesOperator(model), 3, 1);
  const work = sweepWork(model);
  ctx.log(`classes: ${model.states} states, sweep ${fmt(sweepMs)} ms, ${work} multiply-adds`);
  // The production path at this size: the same sweep on every core (worker threads over state blocks).
  const threads = sweepThreads(model.states);
  const engine = await ParallelSweeps.start(model, threads);
  let out;
  let parallelMs = 0;
  let solveS = 0;
  try {
    const par = engine.operator();
    parallelMs = await sweepMsOf(par, 3, 1);
    t = performance.now();
    out = await valueIterate(par, { tolerance: 1e-9, maxIterations: 100_000 });
    solveS = (performance.now() - t) / 1000;
  } finally {
    engine.close();
  }
  const width = (out.upper - out.lower) / Math.abs(out.lower);
  const rate = work / (sweepMs / 1000);
  const plain = await plainMaddRate();
  return {
    name: 'classes',
    machineNote: `Load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} (1 / 5 / 15 min) at the end of the run.`,
    rows: [
      {
        model: `2 classes, S = (${S}, ${S})`,
        states: model.states,
        actions: model.actions,
        'compile (ms)': fmt(compileMs),
        'sweep (ms)': fmt(sweepMs),
        'sweeps/s': fmt(1000 / sweepMs),
        threads,
        [`sweep on ${threads} threads (ms)`]: fmt(parallelMs),
        [`sweeps/s on ${threads} threads`]: fmt(1000 / parallelMs),
        'multiply-adds/sweep': work,
        'multiply-adds/s': rate.toExponential(2),
        'plain f64 loop multiply-adds/s': plain.toExponential(2),
        'share of plain loop': `${((100 * rate) / plain).toFixed(0)} %`,
        [`share of plain loop × ${threads} threads`]: `${((100 * work) / (parallelMs / 1000) / (plain * threads)).toFixed(0)} %`,
        'RVI sweeps': out.iterations,
        'RVI (s)': fmt(solveS),
        'relative width': width.toExponential(2),
        stop: out.stopReason,
      },
    ],
    notes: [
      'The plain loop is acc += a[i]·(b[i] − c) over two cache-resident f64 arrays on one thread (this machine has ' + os.cpus().length + ' cores; the joint sweep runs on one): the practical limit of the sweep’s inner operation here; on T threads the limit is taken as T times it.',
      'f64, the joint Bellman step of src/model/classes/bellman.ts: sweep (ms) on one thread; the threaded sweep and the RVI on every core (ParallelSweeps, worker threads over state blocks, bit for bit the one-thread step), on the one RVI loop (valueIterate); the certified interval is the Odoni bounds of the last sweep.',
      'Sweep work = the multiplications of the serve sums (sweepWork): a kernel’s entries at every state where its serve is allowed, or for a product kernel (deterministic service, as here) its per-axis terms (docs/model.md §10). The previous build summed every joint entry, 93,480,667 per sweep on this model (796 ms a sweep, 757 s the RVI, section of 2026-12-01).',
    ],
  };
}
