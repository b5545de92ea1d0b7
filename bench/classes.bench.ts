/**
 * The joint multi-class model (docs/model.md §10) on the CPU in f64: two classes at
 * S = (300, 300), 90,601 states. Times the compile, one Bellman sweep (median of 3, reported as
 * sweeps per second with the sweep's multiply-adds and their rate), and the whole certified
 * relative value iteration at that fixed S (one run: it takes long).
 */
import { classesOperator, sweepWork } from '../src/model/classes/bellman.js';
import { compileClasses } from '../src/model/classes/compile.js';
import { validateClassesScenario } from '../src/model/classes/validate.js';
import { valueIterate } from '../src/solve/cpu/rvi.js';
import os from 'node:os';
import { fmt, median } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

const scenario = (S: number) => ({
  classes: [
    { name: 'small', arrivalRate: 300, maxBatchSize: 4, serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 } }, power: { busyLinear: { perItem: 3, base: 80 } }, latencyWeight: 1, maxQueue: S },
    { name: 'large', arrivalRate: 80, maxBatchSize: 2, serviceTime: { linear: { perItem: 0.0005, base: 0.004 } }, power: { busyLinear: { perItem: 10, base: 120 } }, latencyWeight: 2, maxQueue: S },
  ],
  power: { idleWatts: 40 },
  objective: { powerWeight: 1e-4 },
});

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const S = ctx.quick ? 100 : 300;
  const { params } = validateClassesScenario(scenario(S));
  let t = performance.now();
  const model = compileClasses(params, [S, S]);
  const compileMs = performance.now() - t;
  const op = classesOperator(model);
  const h = new Float64Array(model.states);
  const gap = new Float64Array(model.states);
  const policy = new Int32Array(model.states);
  op.step(h, gap, policy);
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    t = performance.now();
    op.step(h, gap, policy);
    times.push(performance.now() - t);
  }
  const sweepMs = median(times);
  const work = sweepWork(model);
  ctx.log(`classes: ${model.states} states, sweep ${fmt(sweepMs)} ms, ${work} multiply-adds`);
  t = performance.now();
  const out = await valueIterate(op, { tolerance: 1e-9, maxIterations: 100_000 });
  const solveS = (performance.now() - t) / 1000;
  const width = (out.upper - out.lower) / Math.abs(out.lower);
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
        'multiply-adds/sweep': work,
        'multiply-adds/s': (work / (sweepMs / 1000)).toExponential(2),
        'RVI sweeps': out.iterations,
        'RVI (s)': fmt(solveS),
        'relative width': width.toExponential(2),
        stop: out.stopReason,
      },
    ],
    notes: [
      'One thread, f64, the joint Bellman step of src/model/classes/bellman.ts on the one RVI loop (valueIterate); the certified interval is the Odoni bounds of the last sweep.',
      'Sweep work = the multiplications of the serve sums (sweepWork): a kernel’s entries at every state where its serve is allowed, or for a product kernel (deterministic service, as here) its per-axis terms (docs/model.md §10). The previous build summed every joint entry, 93,480,667 per sweep on this model (796 ms a sweep, 757 s the RVI, section of 2026-12-01).',
    ],
  };
}
