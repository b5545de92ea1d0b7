import { LimitError } from '../model/errors.js';
import type { Continuation } from './continuation.js';
import { antiderivative, chebIntegral, chebyshevMatrix, interpolate } from './chebyshev.js';
import { gaussLegendre } from './gauss.js';
import { poissonRow } from './poisson.js';

/**
 * The arrivals that come during a batch (docs/model.md §9.1): per batch size b0, the terms (D, n)
 * their continuations reach, each with its weight ρ(x) over the elapsed time x of the batch
 * (P(R ≤ t) of those arrivals at any t: busyValue.ts).
 */
export interface BusyKey {
  readonly D: number;
  readonly n: number;
  /** ∫ρ over the whole batch. */
  readonly mass: number;
  /** ∫ρ(x)·(l(b0) − x) dx: the batch time left, for the mean. */
  readonly left: number;
  /** ρ as a Chebyshev series in z = 2x/l(b0) − 1. */
  readonly cheb: Float64Array;
  /** The series of ∫ρ dz, and its value at z = 1. */
  readonly anti: Float64Array;
  readonly antiTop: number;
  /** ρ·weight·l(b0) at the block's full-interval Gauss–Legendre nodes (terms with waits only: n ≥ 1; else empty). */
  readonly rhoW: Float64Array;
}

export interface BusyBlock {
  readonly L0: number;
  readonly nodes: Float64Array;
  readonly bary: Float64Array;
  /** Full-interval Gauss–Legendre nodes on [0, l(b0)]. */
  readonly fullX: Float64Array;
  /** e^(−λx) at fullX. */
  readonly fullExp: Float64Array;
  readonly sub: { readonly x: Float64Array; readonly w: Float64Array };
  readonly keys: BusyKey[];
}

/** Chebyshev points per block: they resolve Poisson bumps of relative width ~1/√(λ·l(b0)). */
const Q_PER_ROOT = 5;
/** Weight (a bound on its CDF mass) under which an (ahead, behind) state or a term is left out. */
export const SKIP = 1e-19;
/** Doubles of ρ values one block may hold (80 MB). */
const MAX_WEIGHTS = 10_000_000;
/** A term whose Erlang part is done but for this much mass counts as complete (summed into the error). */
export const SETTLED = 1e-19;

/** Length of a Poisson row that leaves < 1e-17 beyond it. */
export function rowLength(mu: number): number {
  return Math.ceil(mu + 9 * Math.sqrt(mu) + 24);
}

/** P(Erlang(n) ≤ x/λ) = 1 to 1e-17 (x is λ·u). */
export function settled(n: number, x: number): boolean {
  return x > n + 10 * Math.sqrt(n) + 45;
}

export function busyBlock(cont: Continuation, W: number, lambda: number, L0: number, b0: number, levels: number[], nu: Float64Array, Y: number, skipped: { value: number }, prune: number): BusyBlock {
  const mu = lambda * L0;
  const Q = Math.min(1024, Math.max(20, Math.ceil(Q_PER_ROOT * Math.sqrt(mu)) + 12));
  const nodes = new Float64Array(Q + 1);
  const bary = new Float64Array(Q + 1);
  for (let c = 0; c <= Q; c++) {
    nodes[c] = (L0 * (1 - Math.cos((Math.PI * c) / Q))) / 2;
    bary[c] = (c % 2 === 0 ? 1 : -1) * (c === 0 || c === Q ? 0.5 : 1);
  }
  const I = rowLength(mu);
  const ahead = new Float64Array(I * (Q + 1)); // [i·(Q+1) + c]
  const behind = new Float64Array(W * (Q + 1)); // [j·(Q+1) + c]
  const rowA = new Float64Array(I);
  const rowB = new Float64Array(Math.max(W, 1));
  for (let c = 0; c <= Q; c++) {
    poissonRow(lambda * nodes[c], rowA);
    for (let i = 0; i < I; i++) ahead[i * (Q + 1) + c] = rowA[i];
    poissonRow(lambda * (L0 - nodes[c]), rowB);
    let below = 0;
    for (let j = 0; j < W - 1; j++) {
      behind[j * (Q + 1) + c] = rowB[j];
      below += rowB[j];
    }
    behind[(W - 1) * (Q + 1) + c] = Math.max(0, 1 - below); // j ≥ mCap all behave as mCap
  }
  // A[k][c] = Σ_{s'} ν(s')/Y·Pois(k − r0; λx_c)
  let kLo = Infinity;
  let kHi = -1;
  for (const s of levels) {
    kLo = Math.min(kLo, s - b0);
    kHi = Math.max(kHi, s - b0 + I - 1);
  }
  kHi = Math.min(kHi, cont.kMax);
  const A = new Float64Array((kHi - kLo + 1) * (Q + 1));
  for (const s of levels) {
    const w = nu[s] / Y;
    const r0 = s - b0;
    for (let i = 0; i < I && r0 + i <= kHi; i++) {
      const base = (r0 + i - kLo) * (Q + 1);
      const src = i * (Q + 1);
      for (let c = 0; c <= Q; c++) A[base + c] += w * ahead[src + c];
    }
  }
  // ρ per term key (shift, waits), indexed densely (a Map lookup per visited term was the hot spot),
  // all keys' values in one array: key q's at [q·(Q+1), (q+1)·(Q+1)).
  const slot = slotsFor(cont);
  const P = Q + 1;
  let rhoAll = new Float64Array(64 * P);
  const touched: number[] = [];
  const wv = new Float64Array(P);
  // Row maxima: A_k·B_j ≤ max A_k · max B_j rules most negligible pairs out without a pass over c.
  const maxB = new Float64Array(W);
  for (let j = 0; j < W; j++) for (let c = 0; c <= Q; c++) maxB[j] = Math.max(maxB[j], behind[j * P + c]);
  // The hot loop reads locals only (V8 then keeps them in registers across the stores to rhoAll).
  const { start: cStart, end: cEnd, coef: cCoef, shift: cShift, waits: cWaits } = cont;
  const { index: sIndex, waits: sWaits } = slot;
  let lost = 0;
  for (let k = kLo; k <= kHi; k++) {
    const base = (k - kLo) * P;
    let top = 0;
    for (let c = 0; c <= Q; c++) top = Math.max(top, A[base + c]);
    if (!(top * L0 > SKIP)) {
      lost += top * L0;
      continue;
    }
    for (let j = 0; j < W; j++) {
      if (j >= I && j < W - 1) continue; // Pois(j; ≤ λ·l(b0)) < 1e-17 there
      const st = k * W + j;
      if (cEnd[st] === cStart[st]) continue; // no terms: reached by almost no arrival (continuation's pruning)
      if (!(top * maxB[j] * L0 > SKIP)) {
        lost += top * maxB[j] * L0;
        continue;
      }
      const bj = j * P;
      let any = 0;
      for (let c = 0; c <= Q; c++) {
        const v = A[base + c] * behind[bj + c];
        wv[c] = v;
        if (v > any) any = v;
      }
      if (!(any * L0 > SKIP)) {
        lost += any * L0;
        continue;
      }
      for (let t = cStart[st]; t < cEnd[st]; t++) {
        const cf = cCoef[t];
        // This (ahead, behind) state's share of the term: ∫ wv·cf ≤ any·|cf|·l(b0).
        const share = any * Math.abs(cf) * L0;
        if (share < prune) {
          lost += share;
          continue;
        }
        const dense = cShift[t] * sWaits + cWaits[t];
        let at = sIndex[dense];
        if (at < 0) {
          at = sIndex[dense] = touched.length;
          if (touched.length * P > MAX_WEIGHTS) throw new LimitError('latency', `the arrivals during batches of ${b0} reach over ${MAX_WEIGHTS / P} terms`);
          touched.push(dense);
          if (touched.length * P > rhoAll.length) {
            const grown = new Float64Array(2 * rhoAll.length);
            grown.set(rhoAll);
            rhoAll = grown;
          }
        }
        const o = at * P;
        for (let c = 0; c <= Q; c++) rhoAll[o + c] += cf * wv[c];
      }
    }
  }
  skipped.value += lost;
  for (const d of touched) slot.index[d] = -1;
  const full = gaussLegendre(Math.ceil(Q / 2) + 12);
  const fullX = full.x.map((x) => x * L0);
  const fullExp = fullX.map((x) => Math.exp(-lambda * x));
  const block = { L0, nodes, bary, fullX, fullExp, sub: gaussLegendre(Math.ceil(Q / 2) + 12), keys: [] as BusyKey[] };
  // The same linear maps for every key of the block: values → series, and (for terms with waits,
  // built on first use) values → Gauss–Legendre values.
  let toGauss: Float64Array | undefined;
  const gaussMap = (): Float64Array => {
    const m = new Float64Array(fullX.length * (Q + 1));
    const unit = new Float64Array(Q + 1);
    for (let c = 0; c <= Q; c++) {
      unit.fill(0);
      unit[c] = 1;
      for (let g = 0; g < fullX.length; g++) m[g * (Q + 1) + c] = interpolate(block, unit, fullX[g]) * full.w[g] * L0;
    }
    return m;
  };
  const toSeries = chebyshevMatrix(Q);
  // The interpolant's integrals as weights on its values (Clenshaw–Curtis), so that a term's mass
  // is known before its series is formed. In z = 2x/l − 1: ∫₋₁¹ T_i = 2/(1 − i²) (i even),
  // z·T_i = (T_{i+1} + T_{i−1})/2; ∫ρ dx = l/2·∫ρ dz and ∫ρ·(l − x) dx = l²/4·∫ρ·(1 − z) dz.
  const w0 = new Float64Array(P);
  const w1 = new Float64Array(P);
  for (let i = 0; i <= Q; i++) {
    const a = chebIntegral(i);
    const b = i === 0 ? chebIntegral(1) : (chebIntegral(i + 1) + chebIntegral(i - 1)) / 2;
    for (let c = 0; c <= Q; c++) {
      w0[c] += a * toSeries[i * P + c];
      w1[c] += b * toSeries[i * P + c];
    }
  }
  for (let q = 0; q < touched.length; q++) {
    const rho = rhoAll.subarray(q * P, (q + 1) * P);
    let I0 = 0;
    let I1 = 0;
    for (let c = 0; c <= Q; c++) {
      I0 += w0[c] * rho[c];
      I1 += w1[c] * rho[c];
    }
    const m = (L0 / 2) * I0;
    if (Math.abs(m) < SKIP) {
      skipped.value += Math.abs(m);
      continue;
    }
    const cheb = new Float64Array(Q + 1);
    for (let i = 0; i <= Q; i++) {
      let v = 0;
      const row = i * (Q + 1);
      for (let c = 0; c <= Q; c++) v += toSeries[row + c] * rho[c];
      cheb[i] = v;
    }
    const n = touched[q] % slot.waits;
    let rhoW: Float64Array | undefined;
    if (n > 0) {
      toGauss ??= gaussMap();
      rhoW = new Float64Array(fullX.length);
      for (let g = 0; g < fullX.length; g++) {
        let v = 0;
        const row = g * (Q + 1);
        for (let c = 0; c <= Q; c++) v += toGauss[row + c] * rho[c];
        rhoW[g] = v;
      }
    }
    const anti = antiderivative(cheb);
    let antiTop = 0;
    for (let i = 0; i < anti.length; i++) antiTop += anti[i];
    block.keys.push({ D: cont.shifts[Math.floor(touched[q] / slot.waits)], n, mass: m, left: ((L0 * L0) / 4) * (I0 - I1), cheb, anti, antiTop, rhoW: rhoW ?? NO_VALUES });
  }
  return block;
}

/** rhoW of the terms without waits: every key keeps one shape, so the evaluation loop stays monomorphic. */
const NO_VALUES = new Float64Array(0);

/** One dense index over (shift, waits) per continuation, shared by its blocks (reset after each). */
const slotCache = new WeakMap<Continuation, { readonly waits: number; readonly index: Int32Array }>();
function slotsFor(cont: Continuation): { readonly waits: number; readonly index: Int32Array } {
  let s = slotCache.get(cont);
  if (!s) {
    let most = 0;
    for (let t = 0; t < cont.waits.length; t++) if (cont.waits[t] > most) most = cont.waits[t];
    s = { waits: most + 1, index: new Int32Array(cont.shifts.length * (most + 1)).fill(-1) };
    slotCache.set(cont, s);
  }
  return s;
}
