import { describe, expect, it } from 'vitest';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { TAIL_MASS_BOUND } from '../../src/solve/maxQueue.js';
import { scenarioOf, type CaseClass } from './support.js';

const a: CaseClass = { name: 'a', rate: 150, B: 3, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1 };
const b: CaseClass = { ...a, name: 'b', rate: 80, B: 2, law: 'GAMMA', cv: 0.8, w: 2 };

describe('automatic S_c per class', () => {
  it('grows each axis from a small start until its boundary mass is below the bound, warm-started, and the answer is that of a fixed-S solve', async () => {
    const auto = await solveClassesScenario(scenarioOf([a, b], 40, 1e-3, 1e-10), { initialMaxQueue: [6, 6] });
    const tried = auto.solver.maxQueueTried;
    expect(tried.length).toBeGreaterThan(1);
    expect(tried[0]).toEqual([6, 6]);
    for (const m of auto.solver.tailMass) expect(m).toBeLessThan(TAIL_MASS_BOUND);
    const S = tried[tried.length - 1];
    expect(auto.policy.maxQueue).toEqual(S);
    const fixed = await solveClassesScenario(scenarioOf([{ ...a, S: S[0] }, { ...b, S: S[1] }], 40, 1e-3, 1e-10));
    const g = fixed.averageCostLower;
    expect(Math.abs(auto.averageCostLower - g) / g).toBeLessThan(2e-10);
    expect(auto.policy.serveClass).toEqual(fixed.policy.serveClass);
    // The figures of the stationary law restate the cost, and the certified interval holds it.
    expect(Math.abs(auto.averageCost - g) / g).toBeLessThan(1e-8);
    // Compact form: each class's control limit is where its axis first serves it.
    expect(auto.policy.controlLimits.every((v) => v !== null && v >= 1)).toBe(true);
    expect(auto.policy.switchingCurve?.length).toBe(S[0] + 1);
  }, 300_000);
});
