import { describe, expect, it } from 'vitest';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { buildRef, policyGain } from './reference.js';
import { refOf, scenarioOf, type CaseClass } from './support.js';

const A = (over: Partial<CaseClass>): CaseClass => ({ name: 'a', rate: 25, B: 2, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 0.02, S: 3, ...over });

/** Every deterministic stationary policy of the truncated model, by the tests' own average-cost equations. */
function bestByEnumeration(cls: CaseClass[], idle: number, wPow: number) {
  const m = buildRef(refOf(cls), cls.map((c) => c.S!), idle, wPow);
  const sizes = m.acts.map((a) => a.length);
  const count = sizes.reduce((a, b) => a * b, 1);
  expect(count).toBeLessThan(300_000);
  const choice = new Array<number>(m.n).fill(0);
  let best = Infinity;
  let evaluated = 0;
  for (let i = 0; i < count; i++) {
    let r = i;
    for (let x = 0; x < m.n; x++) {
      choice[x] = r % sizes[x];
      r = Math.floor(r / sizes[x]);
    }
    const g = policyGain(m, choice);
    if (Number.isFinite(g)) {
      evaluated++;
      best = Math.min(best, g);
    }
  }
  return { m, best, count, evaluated };
}

describe('multi-class brute force (S_c ≤ 4, B_c ≤ 2): the solver finds the best deterministic policy', () => {
  const cases: { name: string; cls: CaseClass[]; idle: number; wPow: number }[] = [
    { name: 'two deterministic classes, S = (3, 2)', cls: [A({}), A({ name: 'b', rate: 15, perItem: 0.002, base: 0.003, w: 0.05, S: 2 })], idle: 40, wPow: 0.01 },
    { name: 'gamma beside exponential, S = (4, 2)', cls: [A({ S: 4, B: 1, law: 'GAMMA', cv: 0.6 }), A({ name: 'b', rate: 10, law: 'EXPONENTIAL', S: 2, w: 0.1 })], idle: 30, wPow: 0.02 },
    { name: 'power-heavy, S = (3, 2), B = (2, 1)', cls: [A({ rate: 30 }), A({ name: 'b', rate: 20, B: 1, S: 2, powerBase: 200 })], idle: 10, wPow: 0.05 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { m, best, count, evaluated } = bestByEnumeration(c.cls, c.idle, c.wPow);
      expect(evaluated).toBeGreaterThan(count / 2);
      expect(best).toBeGreaterThan(0);
      const r = await solveClassesScenario(scenarioOf(c.cls, c.idle, c.wPow));
      expect(r.averageCostLower).toBeLessThanOrEqual(best * (1 + 1e-9));
      expect(r.averageCostUpper).toBeGreaterThanOrEqual(best * (1 - 1e-9));
      expect((r.averageCostUpper - r.averageCostLower) / best).toBeLessThan(1e-9);
      // The returned policy, mapped onto the reference's actions, is optimal by the reference's own equations.
      const choice = m.coords.map((_, x) => m.acts[x].findIndex((a) => a.code[0] === r.policy.serveClass[x] && (a.code[0] < 0 || a.code[1] === r.policy.batch[x])));
      expect(choice.every((i) => i >= 0)).toBe(true);
      expect(Math.abs(policyGain(m, choice) - best) / best).toBeLessThan(1e-9);
    }, 120_000);
  }
});
