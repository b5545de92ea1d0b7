import { describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { greedyPolicy, staticPolicy } from '../../src/policy/policy.js';
import { comparePolicies, defaultDelayGrid } from '../../src/sim/compare.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';

describe('comparePolicies', () => {
  it('paired differences against the optimum match the exact differences, and are sharper than the CIs', async () => {
    const scenario = validateScenario(specScenario(4000, 1e-3));
    const p = scenario.params;
    const solved = await solveScenario(scenario);
    const optimal = { actions: Int32Array.from(solved.policy.actions), tailBatch: 32 };
    const steps: number[] = [];
    const c = await comparePolicies(p, optimal, {
      requests: 200_000,
      tuningRequests: 20_000,
      delayGrid: [0, 1e-3, 3e-3],
      onProgress: (s) => steps.push(s.done),
    });
    expect(c.rows.map((r) => r.label)).toEqual(['optimal', 'greedy', 'best static', 'best triton']);
    expect(steps[steps.length - 1]).toBe(3 + 5);
    // The best static b is the argmin of the exact static costs, over every stable b.
    const stable = Array.from({ length: 32 }, (_, i) => i + 1).filter((b) => p.arrivalRate * p.meanService[b] < b);
    expect(c.staticCosts.map((s) => s.batchSize)).toEqual(stable);
    const exactStatic = stable.map((b) => evaluatePolicy(p, staticPolicy(b)).averageCost);
    const bestB = stable[exactStatic.indexOf(Math.min(...exactStatic))];
    expect(c.rows[2].simulation.policy).toBe(`static:${bestB}`);
    // Exact differences (docs/model.md §5 evaluation) inside the paired intervals.
    const exactGreedy = evaluatePolicy(p, greedyPolicy(32)).averageCost;
    for (const [row, exactCost] of [
      [c.rows[1], exactGreedy],
      [c.rows[2], Math.min(...exactStatic)],
    ] as const) {
      expect(row.exactCost).toBeCloseTo(exactCost, 15);
      const { difference, halfWidth } = row.costAboveOptimal;
      expect(Math.abs(difference - (exactCost - solved.averageCost))).toBeLessThanOrEqual(halfWidth as number);
      expect(halfWidth as number).toBeLessThan((row.simulation.confidence.averageCost as number) / 3);
    }
    // The tuned Triton delay does not beat the optimum.
    const t = c.rows[3].costAboveOptimal;
    expect(t.difference).toBeGreaterThanOrEqual(-(t.halfWidth as number));
    expect(c.rows[0].costAboveOptimal.difference).toBe(0);
  });

  it('default delay grid: 0, then 12 values (3 significant digits) from 5 % of l(1) to 2·l(B), increasing', () => {
    const p = validateScenario(specScenario(4000, 1e-3)).params;
    const g = defaultDelayGrid(p);
    expect(g.length).toBe(13);
    expect(g[0]).toBe(0);
    expect(Math.abs(g[1] / (0.05 * p.meanService[1]) - 1)).toBeLessThan(5e-3);
    expect(Math.abs(g[12] / (2 * p.meanService[32]) - 1)).toBeLessThan(5e-3);
    for (let i = 1; i < g.length; i++) expect(g[i]).toBeGreaterThan(g[i - 1]);
  });
});
