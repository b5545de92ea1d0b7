import { describe, expect, it } from 'vitest';
import { compileClasses, firstActions } from '../../src/model/classes/compile.js';
import { stationaryLaw } from '../../src/model/classes/stationary.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { rng } from '../helpers/random.js';
import { buildRef, type RefModel } from './reference.js';
import { refOf, scenarioOf, type CaseClass } from './support.js';

/** π with π·(I − P) = 0 and Σπ = 1 by Gaussian elimination with partial pivoting on the reference's dense rows. */
function denseStationary(m: RefModel, choice: number[]): Float64Array {
  const n = m.n;
  // Row y: Σ_x π_x·(δ_xy − P_xy) = 0, the last replaced by Σ_x π_x = 1.
  const A = Array.from({ length: n }, (_, y) => {
    const row = new Float64Array(n + 1);
    for (let x = 0; x < n; x++) row[x] = y === n - 1 ? 1 : (x === y ? 1 : 0) - m.acts[x][choice[x]].row[y];
    row[n] = y === n - 1 ? 1 : 0;
    return row;
  });
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r][col]) > Math.abs(A[piv][col])) piv = r;
    [A[col], A[piv]] = [A[piv], A[col]];
    for (let r = col + 1; r < n; r++) {
      const f = A[r][col] / A[col][col];
      if (f !== 0) for (let k = col; k <= n; k++) A[r][k] -= f * A[col][k];
    }
  }
  const pi = new Float64Array(n);
  for (let r = n - 1; r >= 0; r--) {
    let s = A[r][n];
    for (let k = r + 1; k < n; k++) s -= A[r][k] * pi[k];
    pi[r] = s / A[r][r];
  }
  return pi;
}

/** Waits while every queue is below `wait` (and below its top), else serves the longest queue a full batch; or, `random`, any allowed action. */
function choose(m: RefModel, rule: { wait: number } | { random: number }): number[] {
  const r = 'random' in rule ? rng(rule.random) : undefined;
  return m.coords.map((v, x) => {
    const acts = m.acts[x];
    if (r) return Math.floor(r() * acts.length);
    const waitAt = acts.findIndex((a) => a.code[0] < 0);
    if (waitAt >= 0 && 'wait' in rule && v.every((k) => k < rule.wait)) return waitAt;
    const c = v.indexOf(Math.max(...v));
    const b = Math.max(...acts.filter((a) => a.code[0] === c).map((a) => a.code[1]));
    return acts.findIndex((a) => a.code[0] === c && a.code[1] === b);
  });
}

const a: CaseClass = { name: 'a', rate: 150, B: 3, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1 };
const one: CaseClass = { ...a, B: 1 };

describe('stationaryLaw against a dense direct solve of the reference chain (overflow lumped at the tops)', () => {
  const cases: { name: string; cls: CaseClass[]; S: number[]; rule: { wait: number } | { random: number }; powerSteps?: number }[] = [
    { name: 'two classes, deterministic beside gamma, a threshold policy', cls: [a, { ...a, name: 'b', rate: 80, B: 2, law: 'GAMMA', cv: 0.8, w: 2 }], S: [9, 7], rule: { wait: 3 } },
    // powerSteps: what plain power iteration (the method before) took here.
    { name: 'two classes at high load (slow mixing), a threshold policy', cls: [{ ...a, rate: 360, B: 4 }, { ...a, name: 'b', rate: 150, B: 3, perItem: 0.002, w: 2 }], S: [16, 14], rule: { wait: 2 }, powerSteps: 2898 },
    { name: 'two classes, exponential, a random policy', cls: [{ ...a, law: 'EXPONENTIAL' }, { ...a, name: 'b', rate: 100, w: 0.5 }], S: [8, 8], rule: { random: 7 } },
    // Three classes with B_c = 1 and deterministic service only: beyond that the reference's joint law takes minutes to build.
    { name: 'three classes, a threshold policy', cls: [one, { ...one, name: 'b', rate: 60, w: 2 }, { ...one, name: 'c', rate: 40, w: 0.5 }], S: [5, 4, 4], rule: { wait: 2 } },
    { name: 'three classes, a random policy', cls: [one, { ...one, name: 'b', rate: 60, w: 2 }, { ...one, name: 'c', rate: 40, w: 0.5 }], S: [4, 4, 3], rule: { random: 11 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const ref = buildRef(refOf(c.cls), c.S, 40, 1e-3, 'lump');
      const choice = choose(ref, c.rule);
      const model = compileClasses(validateClassesScenario(scenarioOf(c.cls, 40, 1e-3)).params, c.S);
      expect(model.states).toBe(ref.n);
      const first = firstActions(model.params);
      const policy = Int32Array.from(choice, (i, x) => {
        const [cl, b] = ref.acts[x][i].code;
        return cl < 0 ? 0 : first[cl] + b - 1;
      });
      const dense = denseStationary(ref, choice);
      const law = stationaryLaw(model, policy);
      const l1 = (pi: Float64Array) => pi.reduce((s, p, x) => s + Math.abs(p - dense[x]), 0);
      expect(l1(law.pi)).toBeLessThan(1e-10);
      // Where plain power iteration is slow, the sweeps are not (not its fallback).
      if (c.powerSteps) expect(law.steps).toBeLessThan(c.powerSteps / 2);
      // Warm-started from its own answer it stops at once, as good.
      const again = stationaryLaw(model, policy, { start: law.pi });
      expect(again.steps).toBeLessThan(law.steps);
      expect(l1(again.pi)).toBeLessThan(1e-10);
    });
  }
});
