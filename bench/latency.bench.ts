/**
 * The response-time distribution (docs/model.md §9) beside the solve it follows, on the
 * docs/model.md §6 rows: the solve end to end, then percentiles and a 32-point CDF of its policy.
 */
import { compileModel, evaluatePolicy, solveScenarioDetailed, validateScenario } from '../src/index.js';
import { responseTimeDistribution } from '../src/latency/distribution.js';
import { scenario } from './solver.bench.js';
import { fmt, median, timeRuns } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

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
  for (const c of cases) {
    ctx.log(c.name);
    const sc = validateScenario(c.s);
    let sol: Awaited<ReturnType<typeof solveScenarioDetailed>> | undefined;
    const solveMs = await timeRuns(async () => (sol = await solveScenarioDetailed(sc, { percentiles: false })), ctx.quick ? 3 : 11, ctx.quick ? 1 : 5);
    const policy = { actions: sol!.warmStart.policy, tailBatch: sc.params.maxBatchSize };
    const model = compileModel(sc.params, sol!.result.solver.maxQueue);
    let d: ReturnType<typeof responseTimeDistribution> | undefined;
    const latMs = await timeRuns(async () => (d = responseTimeDistribution(model, policy, evaluatePolicy(sc.params, policy))), ctx.quick ? 1 : 3, 0);
    rows.push({
      scenario: c.name,
      'solve median ms': fmt(median(solveMs)),
      method: d!.method,
      'distribution median ms': fmt(median(latMs)),
      ratio: `${fmt(median(latMs) / median(solveMs))}×`,
      'terms / steps': d!.work,
      'p50 ms': fmt(d!.percentiles.p50 * 1e3),
      'p99 ms': fmt(d!.percentiles.p99 * 1e3),
      'p99.9 ms': fmt(d!.percentiles.p999 * 1e3),
      'stated rel. accuracy (t)': fmt(d!.accuracy.percentileRelative, 2),
    });
  }
  return {
    name: 'Response-time distribution beside the solve (CPU)',
    rows,
    notes: [
      'distribution = exact evaluation of the solved policy, then its response-time law (docs/model.md §9: the exact mixture for deterministic service, uniformization for exponential) and the five percentiles by safeguarded Newton plus a 32-point CDF.',
      'terms / steps = shifted-Erlang terms of the mixture, or uniformization steps.',
      'ratio = distribution time / solve time; the issue asks for at most 1×.',
    ],
  };
}
