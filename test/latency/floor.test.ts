import { describe, expect, it } from 'vitest';
import { responseTimeLaw } from '../../src/latency/distribution.js';
import { responseCdfCeiling } from '../../src/latency/floor.js';
import { erlangCdf } from '../../src/latency/poisson.js';
import { quantile } from '../../src/latency/percentiles.js';
import { latencyModel } from '../../src/latency/summary.js';
import { validateScenario } from '../../src/model/validate.js';
import { cappedControlLimits } from '../../src/plan/percentileFamily.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * The CDF ceiling planners rule members out with (src/latency/floor.ts), for exponential service:
 * never below the exact CDF, against the M/M/1 closed form R ~ Exp(μ − λ) and against the exact
 * law of every stable capped control limit at B = 8; and tight enough to rule out something
 * (a loaded member's ceiling below 0.99 at a fraction of its p99).
 */
describe('the CDF ceiling for exponential service', () => {
  it('M/M/1: at or above 1 − exp(−(μ − λ)t) at every t', () => {
    const mu = 500;
    const lambda = 400;
    const sc = validateScenario({
      arrivalRate: lambda,
      maxBatchSize: 1,
      serviceTime: { linear: { perItem: 1 / mu, base: 0 }, distribution: 'EXPONENTIAL' },
      power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
      objective: { latencyWeight: 1, powerWeight: 0 },
    });
    const policy = { actions: new Int32Array(1), tailBatch: 1 };
    const ceiling = responseCdfCeiling(sc.params, policy, evaluatePolicy(sc.params, policy))!;
    for (let i = 1; i <= 40; i++) {
      const t = (i / 40) * (8 / (mu - lambda));
      expect(ceiling(t)).toBeGreaterThanOrEqual(-Math.expm1(-(mu - lambda) * t) - 1e-12);
      expect(ceiling(t)).toBeLessThanOrEqual(1);
    }
  });

  it('B = 8, λ = 2400 /s (91 % of capacity): at or above every capped control limit’s exact CDF, and below 0.99 where the load is high', () => {
    const base = specScenario(2400, 1e-4, { maxBatchSize: 8 });
    const sc = validateScenario({ ...base, serviceTime: { ...base.serviceTime, distribution: 'EXPONENTIAL' } });
    const model = latencyModel(sc.params);
    let rules = 0;
    for (const { policy } of cappedControlLimits(sc.params)) {
      const ev = evaluatePolicy(sc.params, policy);
      const ceiling = responseCdfCeiling(sc.params, policy, ev)!;
      const law = responseTimeLaw(model, policy, ev);
      const p99 = quantile(law, 0.99, 0).t;
      for (const f of [0.1, 0.3, 0.5, 0.8, 1, 1.5]) expect(ceiling(f * p99)).toBeGreaterThanOrEqual(law.cdf(f * p99) - law.cdfError - 1e-12);
      if (ceiling(0.5 * p99) < 0.99) rules++;
    }
    expect(rules).toBeGreaterThan(0);
  });

  it('erlangCdf returns 0, not a hang, where Pois(n − 1; x) underflows (n = 300 batches, x = 1)', () => {
    // Before, the upper-tail sum looped for ever on 0 < 0·1e-17; the ceiling meets such n at short t.
    expect(erlangCdf(300, 1)).toBe(0);
    expect(erlangCdf(300, 250)).toBeGreaterThan(0);
  });

  it('gives none for gamma service with cv ≠ 1 or MMPP arrivals', () => {
    const base = specScenario(1500, 1e-4, { maxBatchSize: 8 });
    const sc = validateScenario({ ...base, serviceTime: { ...base.serviceTime, distribution: 'GAMMA', cv: 0.7 } });
    const policy = { actions: new Int32Array(2), tailBatch: 8 };
    expect(responseCdfCeiling(sc.params, policy, evaluatePolicy(sc.params, policy))).toBeUndefined();
  });
});
