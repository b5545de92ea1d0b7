/**
 * The response-time distribution (docs/model.md §9) beside the solve it follows, on the
 * docs/model.md §6 rows: the solve end to end, then the five percentiles of its policy, as every
 * result computes them (RESULT_LAW_OPTIONS, from the solve's own evaluation). With BATCHWISE_BENCH_LATENCY_BASELINE set to a checkout of
 * an older commit with its dist/ built, the same computation by that build is timed too, runs of
 * the two alternating (so a change of load on the machine falls on both alike).
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileModel, evaluatePolicy, solveScenarioDetailed, validateScenario } from '../src/index.js';
import { isExponentialLaw, responseTimeDistribution } from '../src/latency/distribution.js';
import { RESULT_LAW_OPTIONS } from '../src/latency/summary.js';
import { baselineCommit } from './beforeAfter.js';
import { scenario } from './solver.bench.js';
import { fmt, median, timeRuns } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

type Percentiles = () => { percentiles: { p99: number } };

/** The baseline build's entry points for the same computation, or why there is none. */
async function baseline(s: unknown, maxQueue: number, actions: Int32Array, tailBatch: number): Promise<Percentiles | string> {
  const dir = process.env.BATCHWISE_BENCH_LATENCY_BASELINE;
  const index = dir ? join(dir, 'dist/src/index.js') : undefined;
  const dist = dir ? join(dir, 'dist/src/latency/distribution.js') : undefined;
  const summary = dir ? join(dir, 'dist/src/latency/summary.js') : undefined;
  if (!index || !dist || !summary || !existsSync(index) || !existsSync(dist) || !existsSync(summary)) return `set BATCHWISE_BENCH_LATENCY_BASELINE to a checkout with dist/ built (${dir ?? 'unset'})`;
  const lib = (await import(pathToFileURL(index).href)) as typeof import('../src/index.js');
  const law = (await import(pathToFileURL(dist).href)) as typeof import('../src/latency/distribution.js');
  const options = ((await import(pathToFileURL(summary).href)) as typeof import('../src/latency/summary.js')).RESULT_LAW_OPTIONS;
  const sc = lib.validateScenario(s);
  const model = lib.compileModel(sc.params, maxQueue);
  const policy = { actions, tailBatch };
  const ev = lib.evaluatePolicy(sc.params, policy, { minLevels: maxQueue + 1 });
  // Its own result settings, but no work bound: an older build may count work otherwise (and refuse what this one computes).
  return () => law.responseTimeDistribution(model, policy, ev, { ...options, maxWork: Infinity });
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const cases = [
    { name: 'λ=1500 w_pow=0', s: scenario(1500, 0) },
    { name: 'λ=1500 w_pow=1e-4', s: scenario(1500, 1e-4) },
    { name: 'λ=4000 w_pow=1e-4', s: scenario(4000, 1e-4) },
    { name: 'λ=4000 w_pow=1e-3', s: scenario(4000, 1e-3) },
    // The §6 random-service row with exponential service: the uniformized route.
    { name: 'λ=2000 w_pow=1e-4 exponential', s: scenario(2000, 1e-4, 32, 'EXPONENTIAL') },
  ];
  const rows: BenchSection['rows'] = [];
  const notes: string[] = [];
  const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' / ');
  const loadBefore = load();
  for (const c of cases) {
    ctx.log(c.name);
    const sc = validateScenario(c.s);
    let sol: Awaited<ReturnType<typeof solveScenarioDetailed>> | undefined;
    const solveMs = await timeRuns(async () => (sol = await solveScenarioDetailed(sc, { percentiles: false })), ctx.quick ? 3 : 11, ctx.quick ? 1 : 5);
    const policy = { actions: sol!.warmStart.policy, tailBatch: sc.params.maxBatchSize };
    const S = sol!.result.solver.maxQueue;
    const model = compileModel(sc.params, S);
    // The solve's own evaluation (it extends past S), which latencyFigures is handed: not timed again.
    const ev = evaluatePolicy(sc.params, policy, { minLevels: S + 1 });
    const now = (): ReturnType<typeof responseTimeDistribution> => responseTimeDistribution(model, policy, ev, RESULT_LAW_OPTIONS);
    const base = await baseline(c.s, S, policy.actions, policy.tailBatch);
    // The uniformized row takes seconds a run: fewer of them.
    const reps = ctx.quick ? 1 : isExponentialLaw(sc.params) ? 3 : 5;
    const after: number[] = [];
    const before: number[] = [];
    let d: ReturnType<typeof responseTimeDistribution> | undefined;
    let p99Before = NaN;
    // The first call of each build pays its JIT warm-up: one untimed call each.
    now();
    if (typeof base !== 'string') base();
    for (let i = 0; i < reps; i++) {
      let t = performance.now();
      d = now();
      after.push(performance.now() - t);
      if (typeof base !== 'string') {
        t = performance.now();
        p99Before = base().percentiles.p99;
        before.push(performance.now() - t);
      }
    }
    if (typeof base === 'string' && notes.length === 0) notes.push(`No before column: ${base}.`);
    if (typeof base !== 'string' && notes.length === 0) notes.push(`Baseline: ${process.env.BATCHWISE_BENCH_LATENCY_BASELINE}${baselineCommit(process.env.BATCHWISE_BENCH_LATENCY_BASELINE!)}.`);
    rows.push({
      scenario: c.name,
      'solve median ms': fmt(median(solveMs)),
      method: d!.method,
      ...(before.length ? { 'before median ms': fmt(median(before)) } : {}),
      'distribution median ms': fmt(median(after)),
      ...(before.length ? { 'before / after': `${fmt(median(before) / median(after))}×` } : {}),
      'ratio to solve': `${fmt(median(after) / median(solveMs))}×`,
      'terms / steps': d!.work,
      'p50 ms': fmt(d!.percentiles.p50 * 1e3),
      'p99 ms': fmt(d!.percentiles.p99 * 1e3),
      ...(before.length ? { 'p99 rel. diff. to before': fmt(Math.abs(d!.percentiles.p99 - p99Before) / p99Before, 2) } : {}),
      'p99.9 ms': fmt(d!.percentiles.p999 * 1e3),
      'stated rel. accuracy (t)': fmt(d!.accuracy.percentileRelative, 2),
    });
  }
  return {
    name: 'Response-time distribution beside the solve (CPU)',
    rows,
    notes: [
      'distribution = the response-time law of the solved policy from the solve’s own exact evaluation (docs/model.md §9: the exact mixture for deterministic service, uniformization for exponential) and the five percentiles by the safeguarded Newton search, as every result computes them (`RESULT_LAW_OPTIONS`: no CDF grid, thresholds and stop rules at what the percentiles to 1e-4 need, the stated accuracy beside); after one untimed call. The evaluation is part of the solve (it is timed there), not again here.',
      'before = the same computation by the baseline build (BATCHWISE_BENCH_LATENCY_BASELINE) with its own RESULT_LAW_OPTIONS (no work bound), from its own evaluation, runs alternating with this build.',
      'terms / steps = shifted-Erlang terms of the mixture, or uniformization steps.',
      'ratio to solve = distribution time / solve time; the issue asks for at most 1×.',
      ...notes,
      `Load average ${loadBefore} before and ${load()} after (1 / 5 / 15 min; the machine is shared, both builds see the same load).`,
    ],
  };
}
