import { describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { greedyPolicy } from '../../src/policy/policy.js';
import { simulate } from '../../src/sim/simulate.js';
import { SPEC_FIT, specScenario } from '../helpers/scenarios.js';

/**
 * Inoue's closed form (arXiv 1912.06322, docs/model.md §6) for the greedy policy with no batch limit
 * and deterministic l(b) = α·b + τ0: E[R] = min(φ0, φ1). Written out here from the spec,
 * independently of the code under test.
 */
function inoue(lambda: number, alpha: number, tau0: number): number {
  const rho = lambda * alpha;
  const phi0 = ((alpha + tau0) / (2 * (1 - rho))) * (1 + 2 * lambda * tau0 + (1 - lambda * tau0) / (1 + rho));
  const phi1 = (1.5 * tau0) / (1 - rho) + (alpha / 2) * ((rho + 2) / (1 - rho * rho));
  return Math.min(phi0, phi1);
}

describe("greedy in simulation vs Inoue's closed form (B = 1024, i.e. no limit)", () => {
  // Bound on the 95 % half-width relative to the mean. Near saturation the queue forgets
  // slowly: at ρ = 0.9 the half-width averaged 1.81 % of the mean over seeds 1–20 (max
  // 2.27 %), with the closed form inside it 19 times out of 20; 1 % would take ≈ 3.3·10⁶.
  for (const [rho, printed, bound] of [
    [0.5, 5.901867, 0.01],
    [0.9, 29.408421, 0.03],
  ] as const) {
    it(`ρ = ${rho}: closed form ${printed} ms inside the 95 % CI of 10⁶ simulated requests`, () => {
      const lambda = rho / SPEC_FIT.perItem;
      const { params } = validateScenario(specScenario(lambda, 0, { maxBatchSize: 1024 }));
      const reference = inoue(lambda, SPEC_FIT.perItem, SPEC_FIT.base);
      expect(reference * 1e3).toBeCloseTo(printed, 5);
      const r = simulate(params, greedyPolicy(1024), { requests: 1_000_000, seed: 1 });
      const half = r.confidence.meanResponseTime as number;
      expect(Math.abs(r.meanResponseTime - reference)).toBeLessThanOrEqual(half);
      expect(half).toBeLessThanOrEqual(bound * r.meanResponseTime);
      // No batch reached the limit, so this really is the unlimited greedy policy.
      expect(r.batchSizeHistogram.length).toBeLessThan(1024);
      // And the exact evaluation agrees with both.
      expect(Math.abs(evaluatePolicy(params, greedyPolicy(1024)).meanResponseTime - reference) / reference).toBeLessThan(1e-5);
    });
  }
});
