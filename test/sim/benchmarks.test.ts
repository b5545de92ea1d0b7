import { describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { greedyPolicy, staticPolicy } from '../../src/policy/policy.js';
import { AimdPolicy } from '../../src/sim/policies/aimd.js';
import { TfServingPolicy } from '../../src/sim/policies/tfServing.js';
import { TritonPolicy } from '../../src/sim/policies/triton.js';
import type { SimPolicy } from '../../src/sim/policies/types.js';
import { simulateDetailed, tablePolicy, type DetailedSimulation } from '../../src/sim/simulate.js';
import { meanHalfWidth } from '../../src/sim/stats.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { SPEC_CASES, specCaseName, specCaseScenario } from '../helpers/specTable.js';

/**
 * On every docs/model.md §6 scenario the solver's policy must cost no more than any policy servers
 * ship, in simulation, up to the statistical error. All runs of a scenario share one seed,
 * so they see the same arrivals (common random numbers) and batch-means group j of two runs
 * covers about the same requests: the check is g_opt − g_other ≤ h, with h the 95 %
 * half-width of the paired group differences (much tighter than the two CIs added).
 * Timer policies are outside the SMDP's policy class, so this is a real check of the claim
 * that waiting only until the next arrival loses nothing under Poisson arrivals.
 */
const REQUESTS = 200_000;

function benchmarks(B: number, l: Float64Array, lambda: number): SimPolicy[] {
  const out: SimPolicy[] = [tablePolicy(greedyPolicy(B), B)];
  for (const b of [4, 8, 16, 24, 32]) if (lambda * l[b] < b) out.push(tablePolicy(staticPolicy(b), B));
  for (const delayMs of [0.5, 1, 2, 4]) {
    out.push(new TritonPolicy({ maxQueueDelay: delayMs / 1e3, preferredBatchSizes: [], maxBatchSize: B }));
    out.push(new TfServingPolicy({ batchTimeout: delayMs / 1e3, maxBatchSize: B, allowedBatchSizes: [] }));
  }
  out.push(new TritonPolicy({ maxQueueDelay: 1e-3, preferredBatchSizes: [8, 16, 32], maxBatchSize: B }));
  out.push(new TfServingPolicy({ batchTimeout: 1e-3, maxBatchSize: B, allowedBatchSizes: [8, 16, 32] }));
  for (const sloMs of [5, 8]) {
    out.push(new AimdPolicy({ latencySlo: sloMs / 1e3, additiveIncrease: 1, multiplicativeDecrease: 0.9, maxBatchSize: B, initialBatchSize: 1 }));
  }
  return out;
}

describe('the optimal policy against the policies servers use (simulation, docs/model.md §6 scenarios)', () => {
  for (const c of SPEC_CASES) {
    it(specCaseName(c), async () => {
      const scenario = validateScenario(specCaseScenario(c));
      const p = scenario.params;
      const solved = await solveScenario(scenario);
      const optimal = { actions: Int32Array.from(solved.policy.actions), tailBatch: p.maxBatchSize };
      const run = (policy: SimPolicy | typeof optimal): DetailedSimulation => simulateDetailed(p, policy, { requests: REQUESTS, seed: 11 });
      const opt = run(optimal);
      let compared = 0;
      for (const policy of benchmarks(p.maxBatchSize, p.meanService, p.arrivalRate)) {
        let r: DetailedSimulation;
        try {
          r = run(policy);
        } catch (e) {
          // A benchmark that cannot keep up (e.g. static 4 at λ = 4000) is not a contender.
          expect(String(e)).toMatch(/unstable|cannot keep up/);
          continue;
        }
        compared++;
        const n = Math.min(opt.groupCost.length, r.groupCost.length);
        const d = opt.groupCost.slice(0, n).map((x, j) => x - r.groupCost[j]);
        const h = meanHalfWidth(d, n, 0.95) as number;
        const diff = opt.result.averageCost - r.result.averageCost;
        expect(diff, `${policy.name}: optimal ${opt.result.averageCost}, it ${r.result.averageCost} (paired ± ${h})`).toBeLessThanOrEqual(h);
      }
      expect(compared).toBeGreaterThan(12);
      // And the best static b by exact evaluation is no better than the optimum, exactly.
      for (let b = 1; b <= p.maxBatchSize; b++) {
        if (!(p.arrivalRate * p.meanService[b] < b)) continue;
        expect(solved.averageCost).toBeLessThanOrEqual(evaluatePolicy(p, staticPolicy(b)).averageCost * (1 + 1e-12));
      }
    });
  }
});
