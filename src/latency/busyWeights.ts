import { LimitError } from '../model/errors.js';
import type { Continuation } from './continuation.js';
import { grown } from './grown.js';

/**
 * A state's values at the Chebyshev points that move the interpolant of its terms by less than
 * this share of `prune` (times the points' Lebesgue constant and l(b0)) are left out from both ends
 * of the interval: the weight of an (ahead, behind) state is a bump, near zero over much of the batch.
 */
const NODE_DROP_SHARE = 1e-2;
/** Doubles of ρ values one block may hold (80 MB). */
const MAX_WEIGHTS = 10_000_000;

/** The ρ values of a block's terms: key q's at rho[q·P, (q + 1)·P), its (shift, waits) as dense[q] = shift·radix + waits. */
export interface BlockWeights {
  readonly count: number;
  readonly radix: number;
  readonly dense: Int32Array;
  readonly rho: Float64Array;
}

/** Scratch reused by every block (its rows are zeroed as keys claim them). */
let rhoAll: Float64Array = new Float64Array(1 << 16);
let denseAll: Int32Array = new Int32Array(1024);

/**
 * ρ_key(x_c) = Σ over the (ahead k, behind j) states reaching the term of A_k(x_c)·B_j(x_c)·c, with
 * A[(k − kLo)·P + c] = Σ_{s'} ν(s')/Y·Pois(k − r0; λx_c) and behind[j·P + c] = Pois(j; λ(l − x_c))
 * (the last row: j ≥ mCap). What it leaves out is added to skipped.value: states and terms under
 * `prune` (their bound ∫ ≤ peak·l), and values dropped at the ends (NODE_DROP_SHARE·prune).
 */
export function blockWeights(
  cont: Continuation,
  W: number,
  A: Float64Array,
  kLo: number,
  kHi: number,
  behind: Float64Array,
  I: number,
  Q: number,
  L0: number,
  lebesgue: number,
  b0: number,
  prune: number,
  skipped: { value: number },
): BlockWeights {
  const P = Q + 1;
  const slot = slotsFor(cont);
  const wv = new Float64Array(P);
  // Row maxima: A_k·B_j ≤ max A_k · max B_j rules most negligible pairs out without a pass over c.
  const maxB = new Float64Array(W);
  for (let j = 0; j < W; j++) for (let c = 0; c <= Q; c++) maxB[j] = Math.max(maxB[j], behind[j * P + c]);
  // The hot loop reads locals only (V8 then keeps them in registers across the stores to rho).
  const { start: cStart, end: cEnd, coef: cCoef, shift: cShift, waits: cWaits } = cont;
  const { index: sIndex, waits: sWaits } = slot;
  let rho = rhoAll;
  let dense = denseAll;
  let count = 0;
  let lost = 0;
  const dropScale = lebesgue * L0;
  const nodeDrop = NODE_DROP_SHARE * prune;
  const floorA = nodeDrop / dropScale;
  for (let k = kLo; k <= kHi; k++) {
    const base = (k - kLo) * P;
    let top = 0;
    for (let c = 0; c <= Q; c++) top = Math.max(top, A[base + c]);
    if (!(top * L0 > prune)) {
      lost += top * L0;
      continue;
    }
    // Where A_k alone is under nodeDrop/(Λ·l) every state of row k drops its values (B ≤ 1,
    // Σ|c| ~ 1): those ends are never formed; their largest, aDrop, enters each state's bound.
    let aLo = 0;
    let aHi = Q;
    let aDrop = 0;
    while (A[base + aLo] < floorA) aDrop = Math.max(aDrop, A[base + aLo++]); // stops at the top (top·l > SKIP)
    while (A[base + aHi] < floorA) aDrop = Math.max(aDrop, A[base + aHi--]);
    for (let j = 0; j < W; j++) {
      if (j >= I && j < W - 1) continue; // Pois(j; ≤ λ·l(b0)) < 1e-17 there
      const st = k * W + j;
      const t0 = cStart[st];
      const t1 = cEnd[st];
      if (t1 === t0) continue; // no terms: reached by almost no arrival (continuation's pruning)
      if (!(top * maxB[j] * L0 > prune)) {
        lost += top * maxB[j] * L0;
        continue;
      }
      const bj = j * P;
      const outside = aDrop * maxB[j];
      let any = outside;
      for (let c = aLo; c <= aHi; c++) {
        const v = A[base + c] * behind[bj + c];
        wv[c] = v;
        if (v > any) any = v;
      }
      if (!(any * L0 > prune)) {
        lost += any * L0;
        continue;
      }
      // The ends where the state's values times all its coefficients stay under nodeDrop: left out,
      // the largest of them times Λ·l(b0)·Σ|c| into the error (the interpolant moves by at most that).
      let sum = 0;
      for (let t = t0; t < t1; t++) sum += Math.abs(cCoef[t]);
      const floor = nodeDrop / (sum * dropScale);
      let dropped = outside;
      let lo = aLo;
      while (lo <= aHi && wv[lo] < floor) dropped = Math.max(dropped, wv[lo++]);
      let hi = aHi;
      while (hi >= lo && wv[hi] < floor) dropped = Math.max(dropped, wv[hi--]);
      lost += dropped * sum * dropScale;
      for (let t = t0; t < t1; t++) {
        const cf = cCoef[t];
        // This (ahead, behind) state's share of the term: ∫ wv·cf ≤ any·|cf|·l(b0).
        const share = any * Math.abs(cf) * L0;
        if (share < prune) {
          lost += share;
          continue;
        }
        const d = cShift[t] * sWaits + cWaits[t];
        let at = sIndex[d];
        if (at < 0) {
          at = sIndex[d] = count++;
          if (count * P > MAX_WEIGHTS) throw new LimitError('latency', `the arrivals during batches of ${b0} reach over ${MAX_WEIGHTS / P} terms`);
          if (count * P > rho.length) rhoAll = rho = grown(rho, Math.max(2 * rho.length, count * P));
          if (count > dense.length) denseAll = dense = grown(dense, 2 * dense.length);
          dense[at] = d;
          rho.fill(0, at * P, (at + 1) * P);
        }
        const o = at * P;
        // two points a step: a quarter faster in V8 than one (fewer loop checks per store)
        let c = lo;
        for (; c < hi; c += 2) {
          rho[o + c] += cf * wv[c];
          rho[o + c + 1] += cf * wv[c + 1];
        }
        if (c === hi) rho[o + c] += cf * wv[c];
      }
    }
  }
  for (let q = 0; q < count; q++) sIndex[dense[q]] = -1;
  skipped.value += lost;
  return { count, radix: sWaits, dense, rho };
}

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
