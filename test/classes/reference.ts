/**
 * An independent dense model of docs/model.md §10 for the tests, from the formulas alone (no
 * import from src/): joint arrival laws (a product of Poisson pmfs for deterministic service, the
 * negative multinomial for gamma/exponential), the data transformation, the quadratic tail
 * extrapolation along every overflowing axis, dense transition rows per (state, action).
 */
export interface RefClass {
  rate: number;
  B: number;
  /** l(b) = perItem·b + base. */
  perItem: number;
  base: number;
  /** 0 deterministic, else gamma with this cv (1 = exponential). */
  cv: number;
  power: (b: number) => number;
  w: number;
}

export interface RefModel {
  n: number;
  S: number[];
  coords: number[][];
  /** Per state: the allowed actions, each with its transformed cost and dense transition row. */
  acts: { code: [number, number]; cost: number; row: Float64Array }[][];
}

function logGamma(x: number): number {
  const g = 7;
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + g + 0.5;
  for (let i = 1; i < g + 2; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** P(K = k) for the arrivals of every class during one batch of b of class c; k over all vectors with Σk ≤ kmax. */
function jointLaw(cls: RefClass[], c: number, b: number): { k: number[]; p: number }[] {
  const l = cls[c].perItem * b + cls[c].base;
  const cv = cls[c].cv;
  const Lam = cls.reduce((s, x) => s + x.rate, 0);
  const logp = (k: number[]): number => {
    let s = 0;
    if (cv === 0) {
      for (let i = 0; i < cls.length; i++) s += -cls[i].rate * l + k[i] * Math.log(cls[i].rate * l) - logGamma(k[i] + 1);
      return s;
    }
    const r = 1 / (cv * cv);
    const th = l * cv * cv;
    const K = k.reduce((a, x) => a + x, 0);
    s = logGamma(r + K) - logGamma(r) - r * Math.log(1 + Lam * th);
    for (let i = 0; i < cls.length; i++) s += k[i] * Math.log((cls[i].rate * th) / (1 + Lam * th)) - logGamma(k[i] + 1);
    return s;
  };
  const out: { k: number[]; p: number }[] = [];
  let mass = 0;
  // Until the mass is 1 − 1e-15, or (rounding keeps a sum of many terms from reaching that) a total K past
  // the mode adds under 1e-18: the tail left is then of that order.
  let level = Infinity;
  for (let K = 0; mass < 1 - 1e-15 && K < 400; K++) {
    const before = mass;
    const rec = (i: number, left: number, k: number[]): void => {
      if (i === cls.length - 1) {
        const kk = [...k, left];
        const p = Math.exp(logp(kk));
        out.push({ k: kk, p });
        mass += p;
        return;
      }
      for (let v = 0; v <= left; v++) rec(i + 1, left - v, [...k, v]);
    };
    rec(0, K, []);
    const added = mass - before;
    if (added < 1e-18 && added < level) break;
    level = added;
  }
  for (const e of out) e.p /= mass;
  return out;
}

/** Coefficients on h(S), h(S−1), h(S−2) of the quadratic extrapolation to S + m. */
const extrap = (m: number): [number, number, number] => {
  const q = (m * (m + 1)) / 2;
  return [1 + m + q, -m - 2 * q, q];
};

/** `lump`: a transition past a top goes to the top (the stochastic truncation, the solver's fallback) instead of the extrapolation. */
export function buildRef(cls: RefClass[], S: number[], idle: number, wPow: number, overflow: 'extrapolate' | 'lump' = 'extrapolate'): RefModel {
  const C = cls.length;
  const coords: number[][] = [];
  const rec = (i: number, v: number[]): void => {
    if (i === C) return void coords.push(v);
    for (let x = 0; x <= S[i]; x++) rec(i + 1, [...v, x]);
  };
  rec(0, []);
  const n = coords.length;
  const index = (v: number[]): number => v.reduce((a, x, i) => a * (S[i] + 1) + x, 0);
  const Lam = cls.reduce((s, x) => s + x.rate, 0);
  let minY = 1 / Lam;
  for (const c of cls) for (let b = 1; b <= c.B; b++) minY = Math.min(minY, c.perItem * b + c.base);
  const tau = 0.999 * minY;
  const laws = cls.map((_, c) => Array.from({ length: cls[c].B + 1 }, (_, b) => (b === 0 ? [] : jointLaw(cls, c, b))));
  /** Adds w·h(v) to the row, extrapolating each axis past its top. */
  const addTo = (row: Float64Array, v: number[], w: number): void => {
    const axis = v.findIndex((x, i) => x > S[i]);
    if (axis < 0) return void (row[index(v)] += w);
    if (overflow === 'lump') return void (row[index(v.map((x, i) => Math.min(x, S[i])))] += w);
    const co = extrap(v[axis] - S[axis]);
    for (let d = 0; d < 3; d++) addTo(row, v.map((x, i) => (i === axis ? S[axis] - d : x)), w * co[d]);
  };
  const acts = coords.map((v) => {
    const hold = v.reduce((s, x, i) => s + (cls[i].w / cls[i].rate) * x, 0);
    const list: { code: [number, number]; cost: number; row: Float64Array }[] = [];
    const x = index(v);
    if (v.every((y, i) => y < S[i])) {
      const row = new Float64Array(n);
      row[x] = 1 - tau * Lam;
      cls.forEach((c, i) => (row[index(v.map((y, j) => (j === i ? y + 1 : y)))] += tau * c.rate));
      list.push({ code: [-1, 0], cost: hold + wPow * idle, row });
    }
    cls.forEach((c, ci) => {
      for (let b = 1; b <= Math.min(v[ci], c.B); b++) {
        const l = c.perItem * b + c.base;
        const m2 = l * l * (1 + c.cv * c.cv);
        let cost = 0;
        cls.forEach((k, i) => (cost += (k.w / k.rate) * (v[i] * l + (k.rate * m2) / 2)));
        cost = (cost + wPow * c.power(b) * l) / l;
        const row = new Float64Array(n);
        row[x] = 1 - tau / l;
        for (const e of laws[ci][b]) addTo(row, v.map((y, i) => y - (i === ci ? b : 0) + e.k[i]), (tau / l) * e.p);
        list.push({ code: [ci, b], cost, row });
      }
    });
    return list;
  });
  return { n, S, coords, acts };
}

/** g of a fixed policy (choice per state) from the average-cost equations h + g = c̃ + P̃h, h(0) = 0. */
export function policyGain(m: RefModel, choice: number[]): number {
  const n = m.n;
  // Unknowns: g at column 0, h(1..n−1) at columns 1..n−1; h(0) = 0.
  const A = Array.from({ length: n }, () => new Float64Array(n + 1));
  for (let x = 0; x < n; x++) {
    const a = m.acts[x][choice[x]];
    A[x][0] = 1;
    for (let y = 1; y < n; y++) A[x][y] = (x === y ? 1 : 0) - a.row[y];
    A[x][n] = a.cost;
  }
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r][col]) > Math.abs(A[piv][col])) piv = r;
    if (Math.abs(A[piv][col]) < 1e-14) return NaN;
    [A[col], A[piv]] = [A[piv], A[col]];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = A[r][col] / A[col][col];
      if (f !== 0) for (let k = col; k <= n; k++) A[r][k] -= f * A[col][k];
    }
  }
  return A[0][n] / A[0][0];
}

/** Dense relative value iteration on the reference model: g with its Odoni bounds, and the greedy choices. */
export function denseRvi(m: RefModel, tol = 1e-12, maxIter = 200_000): { lower: number; upper: number; choice: number[] } {
  let h = new Float64Array(m.n);
  const choice = new Array<number>(m.n).fill(0);
  for (let it = 0; it < maxIter; it++) {
    const v = new Float64Array(m.n);
    for (let x = 0; x < m.n; x++) {
      let best = Infinity;
      m.acts[x].forEach((a, i) => {
        let s = a.cost;
        for (let y = 0; y < m.n; y++) if (a.row[y] !== 0) s += a.row[y] * h[y];
        if (s < best) {
          best = s;
          choice[x] = i;
        }
      });
      v[x] = best;
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (let x = 0; x < m.n; x++) {
      lo = Math.min(lo, v[x] - h[x]);
      hi = Math.max(hi, v[x] - h[x]);
    }
    h = v.map((y) => y - v[0]);
    if (hi - lo <= tol * Math.abs(lo)) return { lower: lo, upper: hi, choice };
  }
  throw new Error('dense RVI did not converge');
}
