import { describe, expect, it } from 'vitest';
import { compileModel } from '../../src/model/compile.js';
import { validateScenario } from '../../src/model/validate.js';
import { policyIteration } from '../../src/solve/cpu/pi.js';
import { relativeValueIteration } from '../../src/solve/cpu/rvi.js';

/**
 * A service table with a sweet spot: batches of 12 run as fast as batches of 4 (say a kernel
 * tuned for that size), so the optimum waits through a run of states for it. Plain policy
 * iteration finds such a run one state per step; with the wait lookahead it must still land
 * on exactly the policy and gain that value iteration (which has no lookahead) finds.
 */
function sweetSpot(lambda: number, powerWeight: number) {
  const values = [2, 2.6, 3.2, 3.8, 4.4, 5, 5.6, 6.2, 6.8, 7.4, 8, 3.8, 9.2, 9.8, 10.4, 11].map((v) => v * 1e-3);
  return validateScenario({
    arrivalRate: lambda,
    maxBatchSize: 16,
    serviceTime: { table: { values }, distribution: 'EXPONENTIAL' },
    power: { idleWatts: 40, busyLinear: { base: 120, perItem: 6 } },
    objective: { latencyWeight: 1, powerWeight },
  }).params;
}

describe('policy iteration with the wait lookahead', () => {
  for (const [lambda, powerWeight] of [
    [600, 0],
    [1000, 1e-4],
    [1350, 1e-3],
  ] as const) {
    it(`matches value iteration on a sweet-spot table (λ = ${lambda}, w_pow = ${powerWeight})`, async () => {
      const model = compileModel(sweetSpot(lambda, powerWeight), 400);
      const pi = await policyIteration(model, { tolerance: 1e-10, maxIterations: 0 });
      const vi = await relativeValueIteration(model, { tolerance: 1e-10, maxIterations: 0 });
      expect(pi.stopReason).toBe('converged');
      expect(vi.stopReason).toBe('converged');
      // Both certify g: their intervals overlap and the policies agree wherever the queue lives.
      expect(pi.lower).toBeLessThanOrEqual(vi.upper * (1 + 1e-12));
      expect(vi.lower).toBeLessThanOrEqual(pi.upper * (1 + 1e-12));
      expect(Array.from(pi.policy.subarray(0, 100))).toEqual(Array.from(vi.policy.subarray(0, 100)));
      // The sweet spot is used: some state waits for a batch of 12.
      expect(Array.from(pi.policy).includes(12)).toBe(true);
    });
  }
});
