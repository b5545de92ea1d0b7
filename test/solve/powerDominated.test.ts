import { describe, expect, it } from 'vitest';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { denseAverageCost, type TinyScenario } from '../helpers/denseEval.js';

/**
 * Issue 18's power-dominated objective: microsecond-scale service at 441,000 /s with w_pow = 1e-3,
 * where power outweighs latency by orders of magnitude. Policy iteration loses its digits there
 * (nearly every policy costs the same); the solve must still certify g*, which the independent
 * dense evaluator of test/helpers checks over a family of policies that holds the optimum.
 */
const perItem = 0.1438e-6;
const base = 1.8874e-6;
const scenario = {
  arrivalRate: 441_000,
  maxBatchSize: 32,
  serviceTime: { linear: { perItem, base }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
  objective: { latencyWeight: 1, powerWeight: 1e-3 },
};
const tiny: TinyScenario = {
  lambda: 441_000,
  B: 32,
  l: (b) => perItem * b + base,
  law: 'det',
  P: (b) => 80 + 3 * b,
  P0: 40,
  wLat: 1,
  wPow: 1e-3,
};

describe('a power-dominated objective is solved and certified, not refused', () => {
  it('its certified interval holds the dense evaluation of the returned policy and bounds every "wait until M, then serve up to b" policy from below', async () => {
    const r = await solveScenario(scenario, { percentiles: false });
    expect(r.solver.stopReason).toBe('converged');
    const width = (r.averageCostUpper - r.averageCostLower) / r.averageCost;
    expect(width).toBeLessThanOrEqual(1e-9);
    const actions = r.policy.actions;
    const returned = denseAverageCost(tiny, (s) => (s < actions.length ? actions[s] : Math.min(s, tiny.B)));
    const slack = 1e-10 * r.averageCost;
    expect(returned).toBeGreaterThanOrEqual(r.averageCostLower - slack);
    expect(returned).toBeLessThanOrEqual(r.averageCostUpper + slack);
    // No policy of the family beats the certified lower bound, and its best one reaches the interval.
    let best = Infinity;
    for (let M = 1; M <= tiny.B; M++) {
      for (let b = M; b <= tiny.B; b++) {
        const g = denseAverageCost(tiny, (s) => (s < M ? 0 : Math.min(s, b)));
        expect(g).toBeGreaterThanOrEqual(r.averageCostLower - slack);
        best = Math.min(best, g);
      }
    }
    expect(best).toBeLessThanOrEqual(r.averageCostUpper + slack);
  });
});
