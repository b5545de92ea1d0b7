import { describe, expect, it } from 'vitest';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { buildRef, denseRvi, policyGain } from './reference.js';
import { refOf, scenarioOf, type CaseClass } from './support.js';

const base: CaseClass = { name: 'a', rate: 200, B: 4, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1, S: 20 };

describe('multi-class solve against an independent dense f64 value iteration (S_c ≈ 20)', () => {
  const cases: { name: string; cls: CaseClass[]; wPow: number }[] = [
    { name: 'deterministic, S = (20, 20)', cls: [base, { ...base, name: 'b', rate: 120, B: 3, perItem: 0.002, w: 2 }], wPow: 1e-3 },
    { name: 'gamma cv 0.5 beside exponential, S = (20, 18)', cls: [{ ...base, law: 'GAMMA', cv: 0.5 }, { ...base, name: 'b', rate: 100, B: 3, law: 'EXPONENTIAL', S: 18, w: 0.5 }], wPow: 2e-3 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const ref = buildRef(refOf(c.cls), c.cls.map((k) => k.S!), 40, c.wPow);
      const dense = denseRvi(ref);
      const r = await solveClassesScenario(scenarioOf(c.cls, 40, c.wPow));
      const g = (dense.lower + dense.upper) / 2;
      expect(Math.abs(r.averageCostLower - g) / g).toBeLessThan(1e-9);
      expect(Math.abs(r.averageCostUpper - g) / g).toBeLessThan(1e-9);
      // The returned policy's own gain by the reference's equations is the optimum.
      const choice = ref.coords.map((_, x) => ref.acts[x].findIndex((a) => a.code[0] === r.policy.serveClass[x] && (a.code[0] < 0 || a.code[1] === r.policy.batch[x])));
      expect(Math.abs(policyGain(ref, choice) - g) / g).toBeLessThan(1e-9);
      // The figures from the policy's stationary law restate its cost (lumped tail: the top holds little mass here).
      expect(Math.max(...r.solver.tailMass)).toBeLessThan(1e-3);
    }, 300_000);
  }
});
