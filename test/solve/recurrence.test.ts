import { describe, expect, it } from 'vitest';
import { buildArrivalTable } from '../../src/model/arrivalTable.js';
import { compileModel, type CompiledModel } from '../../src/model/compile.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { bellmanStep } from '../../src/policy/greedy.js';
import { evaluateOnModel } from '../../src/policy/modelChain.js';
import { policyIteration } from '../../src/solve/cpu/pi.js';
import { solveScenarioDetailed } from '../../src/solve/solveScenario.js';
import type { Solver } from '../../src/solve/types.js';
import { specCapacity, specScenario } from '../helpers/scenarios.js';

// The serve sums of the Bellman step by backward recurrence, for count laws that are sums of
// geometric laws (docs/model.md §3.2), against an independent double-double sum over the law
// and against the direct sums over the arrival table.

type Dist = 'EXPONENTIAL' | 'GAMMA';
function loaded(rho: number, B: number, distribution: Dist, cv?: number, extra: Partial<Scenario> = {}): Scenario {
  const base = specScenario(rho * specCapacity(B), 1e-4, { maxBatchSize: B, ...extra });
  return { ...base, serviceTime: { ...base.serviceTime, distribution, ...(cv !== undefined ? { cv } : {}) } };
}

/** The same model summed over its table (the path every other law takes). */
const direct = (m: CompiledModel): CompiledModel => ({ ...m, cascade: undefined });

// ---- double-double arithmetic (Dekker / Knuth): ~32 digits, for a reference independent of f64 rounding.
type DD = [number, number];
function twoSum(a: number, b: number): DD {
  const s = a + b;
  const v = s - a;
  return [s, a - (s - v) + (b - v)];
}
const SPLIT = 134217729; // 2^27 + 1
function twoProd(a: number, b: number): DD {
  const p = a * b;
  const ca = SPLIT * a;
  const ah = ca - (ca - a);
  const al = a - ah;
  const cb = SPLIT * b;
  const bh = cb - (cb - b);
  const bl = b - bh;
  return [p, ah * bh - p + ah * bl + al * bh + al * bl];
}
function add(x: DD, y: DD): DD {
  const [s, e] = twoSum(x[0], y[0]);
  return twoSum(s, e + x[1] + y[1]);
}
function mul(x: DD, y: DD): DD {
  const [p, e] = twoProd(x[0], y[0]);
  return twoSum(p, e + x[0] * y[1] + x[1] * y[0]);
}
const dd = (a: number): DD => [a, 0];
/** a − b exactly, as a double-double. */
const diff = (a: number, b: number): DD => twoSum(a, -b);

/**
 * NB(n, q) pmf in double-double from the model's q and 1 − q, by convolving geometric laws:
 * p⁽ᵏ⁾_i = (1−q)·p⁽ᵏ⁻¹⁾_i + q·p⁽ᵏ⁾_{i−1}; terms up to `len`.
 */
function cascadePmf(n: number, q: number, c: number, len: number): DD[] {
  let prev: DD[] = Array.from({ length: len }, (_, i) => (i === 0 ? dd(1) : dd(0)));
  for (let k = 1; k <= n; k++) {
    const cur: DD[] = new Array<DD>(len);
    cur[0] = mul(dd(c), prev[0]);
    for (let i = 1; i < len; i++) cur[i] = add(mul(dd(c), prev[i]), mul(dd(q), cur[i - 1]));
    prev = cur;
  }
  return prev;
}

/**
 * The Bellman step of docs/model.md §3.2 for one phase, every sum in double-double over the
 * untruncated law up to S and the model's tail coefficients past it: gap and, per state, the
 * two smallest action values (to tell near-ties). Also Σ|terms| per state (the scale of the sums).
 */
function referenceStep(m: CompiledModel, h: Float64Array) {
  const { S, B, tau, costSlope, kappa, sojourn, cascade } = m;
  if (!cascade) throw new Error('no cascade');
  const laws = Array.from({ length: B + 1 }, (_, b) => (b === 0 ? [] : cascadePmf(cascade.shape, cascade.ratio[b], cascade.complement[b], S + 1)));
  const gap = new Float64Array(S + 1);
  const second = new Float64Array(S + 1);
  const scale = new Float64Array(S + 1);
  for (let s = 0; s <= S; s++) {
    const values: number[] = [];
    if (s < S) values.push(costSlope * s + kappa[0] + m.waitRate[0] * (h[s + 1] - h[s]));
    for (let b = 1; b <= Math.min(s, B); b++) {
      if (m.serves[b] !== 1) continue;
      const u = s - b;
      let acc = dd(0);
      let mag = 0;
      for (let k = 0; u + k <= S; k++) {
        const t = mul(laws[b][k], diff(h[u + k], h[s]));
        acc = add(acc, t);
        mag += Math.abs(t[0]);
      }
      const first = m.tailFirstState[b];
      if (s >= first) {
        const r = 3 * (m.tailStart[b] + s - first);
        for (let i = 0; i < 3; i++) acc = add(acc, mul(dd(m.tailCoef[r + i]), diff(h[S - i], h[s])));
      }
      const w = tau / sojourn[b];
      scale[s] = Math.max(scale[s], w * mag);
      values.push(add(dd(costSlope * s + kappa[b]), mul(dd(w), acc))[0]);
    }
    values.sort((x, y) => x - y);
    gap[s] = values[0];
    second[s] = values[1] ?? Infinity;
  }
  return { gap, second, scale };
}

/** The values of the greedy policy's chain (h̃ = h/τ), as policy iteration hands them to the step. */
function greedyValues(m: CompiledModel): { h: Float64Array; policy: Int32Array; gain: number } {
  const policy = new Int32Array(m.S + 1);
  for (let s = 1; s <= m.S; s++) policy[s] = Math.min(s, m.B);
  const ev = evaluateOnModel(direct(m), policy);
  return { h: ev.values.map((v) => v / m.tau), policy, gain: ev.gain };
}

function compiled(sc: Scenario, S: number): CompiledModel {
  const { params } = validateScenario(sc);
  return compileModel(params, S, buildArrivalTable(params));
}

describe('count laws as cascades of geometric laws', () => {
  it('exponential service is one geometric stage, gamma with an integer shape n is n; others keep the table', () => {
    const shapeOf = (sc: Scenario) => compiled(sc, 400).cascade?.shape;
    expect(shapeOf(loaded(0.9, 16, 'EXPONENTIAL'))).toBe(1);
    expect(shapeOf(loaded(0.9, 16, 'GAMMA', 0.5))).toBe(4);
    expect(shapeOf(loaded(0.9, 16, 'GAMMA', Math.SQRT1_2))).toBe(2); // 1/cv² = 1.9999999999999996
    expect(shapeOf(loaded(0.9, 16, 'GAMMA', 1 / Math.sqrt(3)))).toBe(3);
    expect(shapeOf(loaded(0.9, 16, 'GAMMA', 1.5))).toBeUndefined(); // shape 0.444…: no short recurrence
    expect(shapeOf(loaded(0.9, 16, 'GAMMA', 0.7))).toBeUndefined(); // shape 2.04…
    expect(shapeOf(specScenario(4000, 1e-4))).toBeUndefined(); // deterministic: Poisson counts
    // Several phases: the counting matrices are not geometric in k.
    const { arrivalRate: _, ...poisson } = loaded(0.5, 16, 'EXPONENTIAL');
    expect(shapeOf({ ...poisson, arrivalProcess: { mmpp: { rates: [800, 2400], generator: [-5, 5, 5, -5] } } } as Scenario)).toBeUndefined();
  });

  it("the cascade's law is the table's: NB(n, q_b) matches every stored atom but the boundary ones", () => {
    for (const sc of [loaded(0.9, 16, 'EXPONENTIAL'), loaded(0.95, 8, 'GAMMA', 1 / Math.sqrt(3))]) {
      const m = compiled(sc, 400);
      const c = m.cascade!;
      for (const b of [1, 5, m.B]) {
        const L = m.pmfLength[b];
        const off = m.pmfOffset[b];
        const law = cascadePmf(c.shape, c.ratio[b], c.complement[b], off + L);
        let worst = 0;
        for (let i = 1; i < L - 1; i++) worst = Math.max(worst, Math.abs(m.pmf[m.pmfStart[b] + i] - law[off + i][0]) / law[off + i][0]);
        expect(worst, `b = ${b}`).toBeLessThan(1e-12);
      }
    }
  });
});

describe('the Bellman step by recurrence', () => {
  const cases: Array<{ name: string; sc: Scenario; S: number }> = [
    { name: 'exponential B=16 90 %', sc: loaded(0.9, 16, 'EXPONENTIAL'), S: 900 },
    { name: 'exponential B=4 97 %', sc: loaded(0.97, 4, 'EXPONENTIAL'), S: 1200 },
    { name: 'gamma cv=0.5 (NB 4) B=16 90 %', sc: loaded(0.9, 16, 'GAMMA', 0.5), S: 600 },
    { name: 'gamma cv=1/√3 (NB 3) B=8 95 %', sc: loaded(0.95, 8, 'GAMMA', 1 / Math.sqrt(3)), S: 700 },
    { name: 'exponential, only some sizes allowed', sc: loaded(0.85, 16, 'EXPONENTIAL', undefined, { restrictions: { allowedBatchSizes: [1, 4, 8, 16] } } as Partial<Scenario>), S: 600 },
  ];
  for (const { name, sc, S } of cases) {
    it(`${name}: gaps within 2e-14 of the double-double sums (the table's within 1e-12), same actions`, () => {
      const m = compiled(sc, S);
      expect(m.cascade).toBeDefined();
      const { h, policy } = greedyValues(m);
      const ref = referenceStep(m, h);
      const n = S + 1;
      const byRecurrence = { gap: new Float64Array(n), policy: new Int32Array(n) };
      const byTable = { gap: new Float64Array(n), policy: new Int32Array(n) };
      bellmanStep(m, h, byRecurrence.gap, byRecurrence.policy, policy);
      bellmanStep(direct(m), h, byTable.gap, byTable.policy, policy);
      let worstRecurrence = 0;
      let worstTable = 0;
      let compared = 0;
      for (let s = 0; s < n; s++) {
        const unit = ref.scale[s] + Math.abs(ref.gap[s]);
        worstRecurrence = Math.max(worstRecurrence, Math.abs(byRecurrence.gap[s] - ref.gap[s]) / unit);
        worstTable = Math.max(worstTable, Math.abs(byTable.gap[s] - ref.gap[s]) / unit);
        // Actions are compared where the best two are apart by more than the tie margin and the errors.
        if (ref.second[s] - ref.gap[s] > 1e-10 * unit) {
          compared++;
          expect(byRecurrence.policy[s], `s = ${s}`).toBe(byTable.policy[s]);
        }
      }
      expect(compared).toBeGreaterThan(n / 2);
      expect(worstRecurrence).toBeLessThan(2e-14); // measured 8e-16 to 9e-15; the table's sums 7e-15 to 8e-14
      expect(worstTable).toBeLessThan(1e-12);
    });
  }

  it('holds at any values, not only a policy’s (h with a kink and noise)', () => {
    const m = compiled(loaded(0.9, 16, 'GAMMA', 0.5), 500);
    const h = new Float64Array(m.S + 1);
    for (let s = 0; s <= m.S; s++) h[s] = 0.01 * s * s - (s > 250 ? 3 * (s - 250) : 0) + Math.sin(s);
    const ref = referenceStep(m, h);
    const gap = new Float64Array(m.S + 1);
    bellmanStep(m, h, gap, new Int32Array(m.S + 1));
    for (let s = 0; s <= m.S; s++) expect(Math.abs(gap[s] - ref.gap[s]), `s = ${s}`).toBeLessThan(1e-14 * (ref.scale[s] + Math.abs(ref.gap[s])));
  });
});

describe('solves with the recurrence against solves over the table', () => {
  const overTable: Solver = { backend: 'cpu', solve: (m, o) => policyIteration(direct(m), o) };
  // The fuzz's seed 7 #53 (fuzz-extremes): exponential service at 99.5 %, S ≈ 18,000, precision-limit.
  const extreme53: Scenario = {
    arrivalRate: 21166.765343755094,
    maxBatchSize: 7,
    serviceTime: { linear: { perItem: 0.000009599994253332143, base: 0.0002618536243188192 }, distribution: 'EXPONENTIAL' },
    power: { idleWatts: 23.922126619145274, busyLinear: { perItem: 4.838895150460303, base: 23.938579682726413 } },
    objective: { latencyWeight: 1.0996717468784574, powerWeight: 7.945063076207138e-8 },
  };
  const cases: Array<{ name: string; sc: Scenario }> = [
    { name: 'exponential B=32 80 %', sc: loaded(0.8, 32, 'EXPONENTIAL') },
    { name: 'exponential B=16 95 %', sc: loaded(0.95, 16, 'EXPONENTIAL') },
    { name: 'gamma cv=0.5 B=32 95 %', sc: loaded(0.95, 32, 'GAMMA', 0.5) },
    { name: 'gamma cv=1/√2 B=16 90 %', sc: loaded(0.9, 16, 'GAMMA', Math.SQRT1_2) },
    { name: 'fuzz-extremes seed 7 #53', sc: extreme53 },
  ];
  for (const { name, sc } of cases) {
    it(`${name}: same policy, g inside the table solve's certified interval`, async () => {
      const { params } = validateScenario(sc);
      expect(buildArrivalTable(params).cascade).toBeDefined();
      const now = await solveScenarioDetailed(sc, { percentiles: false });
      const old = await solveScenarioDetailed(sc, { percentiles: false, solver: overTable });
      const [a, b] = [now.result, old.result];
      expect(a.solver.maxQueue).toBe(b.solver.maxQueue);
      expect(Array.from(now.warmStart.policy)).toEqual(Array.from(old.warmStart.policy));
      const slack = 1e-12 * Math.abs(b.averageCost);
      expect(a.averageCost).toBeGreaterThanOrEqual(b.averageCostLower - slack);
      expect(a.averageCost).toBeLessThanOrEqual(b.averageCostUpper + slack);
      expect(a.averageCostLower).toBeLessThanOrEqual(b.averageCostUpper + slack);
      expect(a.averageCostUpper).toBeGreaterThanOrEqual(b.averageCostLower - slack);
    }, 120_000);
  }
});
