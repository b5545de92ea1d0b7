import { expect } from 'vitest';
import { responseTimeDistribution } from '../../src/latency/distribution.js';
import { RESULT_LAW_OPTIONS, type LatencyFigures } from '../../src/latency/summary.js';
import { compileModel, MIN_MAX_QUEUE } from '../../src/model/compile.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { parsePolicySpec } from '../../src/policy/policy.js';
import { policyOf, type EvaluationResult, type SolveResult } from '../../src/solve/result.js';

/**
 * Cheap for the transform route: B = 1, deterministic service l = 2 ms at λ = 300/s (ρ = 0.6),
 * about 70 levels; its distribution takes well under a second.
 */
export function cheapScenario(arrivalRate = 300, maxBatchSize = 1): Scenario {
  return {
    arrivalRate,
    maxBatchSize,
    serviceTime: { linear: { perItem: 0.001, base: 0.001 }, distribution: 'DETERMINISTIC' },
    power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
    objective: { latencyWeight: 1, powerWeight: 0 },
  };
}

/**
 * The five percentiles of responseTimeDistribution, called directly on a result's policy as the
 * solve would: a solve's table (it serves min(s, B) past its end), or the spec an evaluation was given.
 */
export function directPercentiles(scenario: Scenario, r: SolveResult | EvaluationResult, spec?: string): number[] {
  const sc = validateScenario(scenario);
  const p = sc.params;
  const policy = spec ? parsePolicySpec(spec, p.maxBatchSize) : policyOf(r.policy, p.maxBatchSize);
  const S = 'solver' in r ? r.solver.maxQueue : Math.max(MIN_MAX_QUEUE, p.maxBatchSize);
  const ev = evaluatePolicy(p, policy, 'solver' in r ? { minLevels: S + 1 } : {});
  const d = responseTimeDistribution(compileModel(p, S), policy, ev, RESULT_LAW_OPTIONS);
  const q = d.percentiles;
  return [q.p50, q.p90, q.p95, q.p99, q.p999];
}

export const figuresOf = (l: LatencyFigures): number[] => [l.p50, l.p90, l.p95, l.p99, l.p999];

/** The result's percentiles equal a direct call's and rise from p50 to p99.9. */
export function expectPercentilesOf(scenario: Scenario, r: SolveResult | EvaluationResult, spec?: string): void {
  expect(r.latencyUnavailable).toBeUndefined();
  expect(r.latency).toBeDefined();
  const got = figuresOf(r.latency!);
  expect(got).toEqual(directPercentiles(scenario, r, spec));
  for (let i = 1; i < got.length; i++) expect(got[i]).toBeGreaterThanOrEqual(got[i - 1]);
  expect(got[0]).toBeGreaterThan(0);
  expect(r.latency!.accuracy.percentileRelative).toBeGreaterThanOrEqual(0);
}
