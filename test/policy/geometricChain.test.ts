import { describe, expect, it } from 'vitest';
import { buildArrivalTable } from '../../src/model/arrivalTable.js';
import { compileModel, startAction, type CompiledModel } from '../../src/model/compile.js';
import { solveDense } from '../../src/model/dense.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { hasGeometricLaws, solveGeometric } from '../../src/policy/geometricChain.js';
import { bellmanStep, gapBounds } from '../../src/policy/greedy.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { evaluateOnModel } from '../../src/policy/modelChain.js';
import { lumpOverflowAtS } from '../../src/solve/cpu/pi.js';
import { specCapacity, specScenario } from '../helpers/scenarios.js';

// The geometric reduction of the evaluation chain (src/policy/geometricChain.ts, docs/model.md
// §3.5) against the banded GTH reduction of the same model over its table, and on small chains
// against a dense solve of the evaluation equations with partial pivoting.

function exponential(rho: number, B: number): CompiledModel['params'] {
  const base = specScenario(rho * specCapacity(B), 1e-4, { maxBatchSize: B });
  const sc: Scenario = { ...base, serviceTime: { ...base.serviceTime, distribution: 'EXPONENTIAL' } };
  return validateScenario(sc).params;
}

const compiled = (p: CompiledModel['params'], S: number) => compileModel(p, S, buildArrivalTable(p));
/** The same model read over its table: the banded reduction. */
const banded = (m: CompiledModel): CompiledModel => ({ ...m, cascade: undefined });

/** Policies of several shapes: greedy, control limits, partial batches past B, a wait-heavy one whose low states are transient. */
function policies(m: CompiledModel): Array<{ name: string; policy: Int32Array }> {
  const { S, B } = m;
  const make = (f: (s: number) => number) => {
    const p = new Int32Array(S + 1);
    for (let s = 0; s <= S; s++) p[s] = f(s);
    p[S] = Math.max(p[S], startAction(m, S));
    return p;
  };
  return [
    { name: 'greedy', policy: make((s) => startAction(m, s)) },
    { name: 'control limit 3', policy: make((s) => (s >= 3 ? Math.min(s, B) : 0)) },
    { name: 'control limit B/2, partial batches', policy: make((s) => (s < B / 2 ? 0 : s % 7 === 0 ? Math.min(s, B - 1) : Math.min(s, B))) },
    { name: 'waits to 2B (0..B−1 transient)', policy: make((s) => (s < 2 * B ? 0 : B)) },
  ];
}

function maxRelative(a: Float64Array, b: Float64Array): number {
  let diff = 0;
  let scale = 0;
  for (let x = 0; x < a.length; x++) {
    diff = Math.max(diff, Math.abs(a[x] - b[x]));
    scale = Math.max(scale, Math.abs(b[x]));
  }
  return diff / scale;
}

/** The evaluation equations h(s) = c(s)·y(s) − g·y(s) + Σ_j p(s, j)·h(j), h(0) = 0, in a dense system (unknowns h(1..S), g), the exact geometric law up to S and the tail coefficients. */
function denseEvaluation(m: CompiledModel, policy: Int32Array): { gain: number; values: Float64Array } {
  const { S, cascade, tailFirstState, tailStart, tailCoef } = m;
  const n = S + 1;
  const A = new Float64Array(n * n);
  const rhs = new Float64Array(n);
  for (let s = 0; s <= S; s++) {
    const a = policy[s];
    const y = m.sojourn[a];
    rhs[s] = (m.costSlope * s + m.kappa[a]) * y;
    const row = new Float64Array(n);
    row[s] += 1;
    if (a === 0) row[s + 1] -= 1;
    else {
      const q = cascade!.ratio[a];
      let p = cascade!.complement[a];
      for (let j = s - a; j <= S; j++) {
        row[j] -= p;
        p *= q;
      }
      if (s >= tailFirstState[a]) {
        const r = 3 * (tailStart[a] + s - tailFirstState[a]);
        for (let t = 0; t < 3; t++) row[S - t] -= tailCoef[r + t];
      }
    }
    row[0] = y; // g·y moves left; h(0) = 0 frees column 0 for g
    A.set(row, s * n);
  }
  const x = solveDense(A, rhs, n);
  const values = x.slice();
  values[0] = 0;
  return { gain: x[0], values };
}

describe('policy evaluation with geometric count laws, without the dense band', () => {
  it('applies to one-phase exponential service with no wait at S, and only there', () => {
    const m = compiled(exponential(0.8, 8), 200);
    const [greedy] = policies(m);
    expect(hasGeometricLaws(m, greedy.policy)).toBe(true);
    expect(hasGeometricLaws(banded(m), greedy.policy)).toBe(false);
    const gamma = validateScenario({ ...specScenario(0.8 * specCapacity(8), 1e-4, { maxBatchSize: 8 }), serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'GAMMA', cv: 0.5 } }).params;
    expect(hasGeometricLaws(compiled(gamma, 200), greedy.policy)).toBe(false); // NB(4): the banded path
  });

  it('matches a dense solve with partial pivoting on small chains (g, h to 1e-10, no farther than the banded reduction)', () => {
    for (const [rho, B, S] of [
      [0.5, 4, 60],
      [0.8, 8, 200],
      [0.9, 6, 300],
    ] as const) {
      const m = compiled(exponential(rho, B), S);
      for (const { name, policy } of policies(m)) {
        const ref = denseEvaluation(m, policy);
        const err = (ev: { gain: number; values: Float64Array }) => ({ g: Math.abs(ev.gain - ref.gain) / ref.gain, h: maxRelative(ev.values, ref.values) });
        const now = err(evaluateOnModel(m, policy));
        const before = err(evaluateOnModel(banded(m), policy));
        const what = `${rho} B=${B} ${name}`;
        expect(now.g, what).toBeLessThan(1e-10);
        expect(now.h, what).toBeLessThan(1e-10);
        // Gaussian elimination loses more digits than either reduction here; the two agree far closer (next test).
        expect(now.g, what).toBeLessThanOrEqual(2 * before.g + 1e-13);
        expect(now.h, what).toBeLessThanOrEqual(2 * before.h + 1e-13);
      }
    }
  });

  it('matches the banded reduction over the table (g, h to 1e-10, the same mode) on longer laws', () => {
    for (const [rho, B, S] of [
      [0.8, 16, 400],
      [0.9, 32, 900],
      [0.95, 16, 1500],
    ] as const) {
      const m = compiled(exponential(rho, B), S);
      for (const model of [m, lumpOverflowAtS(m)]) {
        for (const { name, policy } of policies(model)) {
          for (const hint of [0, B]) {
            const ev = evaluateOnModel(model, policy, hint);
            const old = evaluateOnModel(banded(model), policy, hint);
            const what = `${rho} B=${B} ${name} hint ${hint}`;
            expect(ev.reusable, what).toBeUndefined(); // the geometric path was taken
            expect(Math.abs(ev.gain - old.gain) / old.gain, what).toBeLessThan(1e-10);
            expect(maxRelative(ev.values, old.values), what).toBeLessThan(1e-10);
            expect(ev.mode, what).toBe(old.mode);
          }
        }
      }
    }
  });

  it('its values certify: the Bellman step on them brackets g as tightly as on the banded values', () => {
    const m = compiled(exponential(0.9, 32), 900);
    for (const { name, policy } of policies(m).slice(0, 3)) {
      const spread = (model: CompiledModel) => {
        const ev = evaluateOnModel(model, policy);
        const gap = new Float64Array(m.S + 1);
        bellmanStep(m, ev.values.map((v) => v / m.tau), gap, new Int32Array(m.S + 1), policy);
        const { lower, upper } = gapBounds(gap);
        expect(lower, name).toBeLessThanOrEqual(ev.gain * (1 + 1e-12));
        expect(upper, name).toBeGreaterThanOrEqual(ev.gain * (1 - 1e-12));
        return (upper - lower) / ev.gain;
      };
      expect(spread(m), name).toBeLessThanOrEqual(Math.max(10 * spread(banded(m)), 1e-12));
    }
  });

  it('its stationary law sums to 1 and agrees with a dense solve', () => {
    const m = compiled(exponential(0.9, 8), 120);
    const [greedy] = policies(m);
    const sol = solveGeometric(m, greedy.policy, 3, 1)!;
    let total = 0;
    for (const v of sol.stationary) total += v;
    expect(Math.abs(total - 1)).toBeLessThan(1e-14);
    // ν(P − I) = 0 checked directly, with the exact law and the tail.
    const { S, cascade, tailFirstState, tailStart, tailCoef } = m;
    const flow = new Float64Array(S + 1);
    const mag = new Float64Array(S + 1); // Σ |terms| per column: the scale of its rounding
    const put = (j: number, v: number) => {
      flow[j] += v;
      mag[j] += Math.abs(v);
    };
    for (let s = 0; s <= S; s++) {
      const a = greedy.policy[s];
      const v = sol.stationary[s];
      put(s, -v);
      if (a === 0) put(s + 1, v);
      else {
        let p = cascade!.complement[a];
        for (let j = s - a; j <= S; j++) {
          put(j, v * p);
          p *= cascade!.ratio[a];
        }
        if (s >= tailFirstState[a]) {
          const r = 3 * (tailStart[a] + s - tailFirstState[a]);
          for (let t = 0; t < 3; t++) put(S - t, v * tailCoef[r + t]);
        }
      }
    }
    for (let s = 0; s <= S; s++) expect(Math.abs(flow[s]), `s=${s}`).toBeLessThan(1e-13 * mag[s]);
  });

  it('the extended chain of §5.2 (evaluatePolicy): the same figures, ν and length as the banded reduction over the table', () => {
    for (const [rho, B] of [
      [0.9, 16],
      [0.8, 32],
      [0.95, 8],
    ] as const) {
      const p = exponential(rho, B);
      const table = buildArrivalTable(p);
      expect(table.cascade?.shape).toBe(1);
      for (const limit of [1, 6, 2 * B]) {
        const actions = new Int32Array(3 * B);
        for (let s = limit; s < actions.length; s++) actions[s] = s % 5 === 0 ? Math.min(s, B - 1) : Math.min(s, B);
        const policy = { actions, tailBatch: B };
        const now = evaluatePolicy(p, policy, { table });
        const old = evaluatePolicy(p, policy, { table: { ...table, cascade: undefined } });
        const what = `${rho} B=${B} limit ${limit}`;
        expect(now.levels, what).toBe(old.levels);
        for (const key of ['averageCost', 'meanResponseTime', 'meanPower', 'throughput', 'utilization', 'meanBatchSize'] as const) {
          expect(Math.abs(now[key] - old[key]) / Math.abs(old[key]), `${what} ${key}`).toBeLessThan(1e-10);
        }
        expect(maxRelative(now.stationary, old.stationary), what).toBeLessThan(1e-11);
      }
    }
  });
});
