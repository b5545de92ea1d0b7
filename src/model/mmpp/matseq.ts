import { TAIL_CUT } from '../arrivals.js';

/**
 * A finite sequence of non-negative M×M matrices indexed by an arrival count k:
 * slice k − from lives at data[(k − from)·M² + r·M + c] (r = starting phase, c = current phase).
 * The working form of the counting-matrix algorithms; `finishBlock` turns it into the
 * solver layout.
 */
export interface MatSeq {
  readonly M: number;
  readonly from: number;
  readonly slices: number;
  readonly data: Float64Array;
}

/** Slices whose total mass falls below this are dropped at either end (error ≤ 1e-20 each). */
export const PRUNE = 1e-20;

export function sliceMass(data: Float64Array, slice: number, M2: number): number {
  let m = 0;
  for (let e = slice * M2; e < (slice + 1) * M2; e++) m += data[e];
  return m;
}

/** Drops negligible slices at both ends. */
export function trim(s: MatSeq): MatSeq {
  const M2 = s.M * s.M;
  let lo = 0;
  let hi = s.slices - 1;
  while (lo < hi && sliceMass(s.data, lo, M2) < PRUNE) lo++;
  while (hi > lo && sliceMass(s.data, hi, M2) < PRUNE) hi--;
  if (lo === 0 && hi === s.slices - 1) return s;
  return { M: s.M, from: s.from + lo, slices: hi - lo + 1, data: s.data.slice(lo * M2, (hi + 1) * M2) };
}

/**
 * C_k = Σ_i A_i·B_{k−i}: the counting matrices of two consecutive intervals (Markov property).
 * All terms are products of non-negative numbers, so every entry keeps full relative
 * precision, tails included. Cost: slices(A)·slices(B)·M³.
 */
export function convolve(A: MatSeq, B: MatSeq): MatSeq {
  const M = A.M;
  const M2 = M * M;
  const slices = A.slices + B.slices - 1;
  const out = new Float64Array(slices * M2);
  const a = A.data;
  const b = B.data;
  // (i, l) outermost with the M×M product inside: every inner loop runs over contiguous rows
  // (about three times faster in V8 than running l innermost).
  for (let i = 0; i < A.slices; i++) {
    const ai = i * M2;
    for (let l = 0; l < B.slices; l++) {
      const o = (i + l) * M2;
      const bl = l * M2;
      for (let r = 0; r < M; r++) {
        const orow = o + r * M;
        for (let m = 0; m < M; m++) {
          const x = a[ai + r * M + m];
          if (x === 0) continue;
          const brow = bl + m * M;
          for (let c = 0; c < M; c++) out[orow + c] += x * b[brow + c];
        }
      }
    }
  }
  return trim({ M, from: A.from + B.from, slices, data: out });
}

/** The solver layout of CountingBlock: probs[(j·length + i)·M + j'] for k = offset + i. */
export interface CountingBlock {
  readonly offset: number;
  readonly length: number;
  readonly probs: Float64Array;
}

/**
 * Cuts both tails where, for every starting phase, less than 1e-15 lies beyond; folds the
 * cut mass onto the boundary slice of the same (j, j') (so Σ_k P_k is unchanged); renormalises
 * each row to 1 (pruning and the event-count cut lose ~1e-15); and transposes to [j][i][j'].
 */
export function finishBlock(s: MatSeq): CountingBlock {
  const { M, from, slices } = s;
  const M2 = M * M;
  const acc = s.data.slice();
  const rowMass = (k: number, r: number): number => {
    let m = 0;
    for (let c = 0; c < M; c++) m += acc[k * M2 + r * M + c];
    return m;
  };
  let bottom = slices - 1;
  let top = 0;
  for (let r = 0; r < M; r++) {
    let cum = 0;
    let k = 0;
    while (k < slices - 1 && cum + rowMass(k, r) < TAIL_CUT) cum += rowMass(k++, r);
    bottom = Math.min(bottom, k);
    cum = 0;
    k = slices - 1;
    while (k > 0 && cum + rowMass(k, r) < TAIL_CUT) cum += rowMass(k--, r);
    top = Math.max(top, k);
  }
  if (bottom > top) bottom = top;
  for (let k = 0; k < bottom; k++) for (let e = 0; e < M2; e++) acc[bottom * M2 + e] += acc[k * M2 + e];
  for (let k = slices - 1; k > top; k--) for (let e = 0; e < M2; e++) acc[top * M2 + e] += acc[k * M2 + e];
  const length = top - bottom + 1;
  const probs = new Float64Array(length * M2);
  for (let r = 0; r < M; r++) {
    let total = 0;
    for (let k = bottom; k <= top; k++) total += rowMass(k, r);
    for (let k = bottom; k <= top; k++) {
      for (let c = 0; c < M; c++) probs[(r * length + k - bottom) * M + c] = acc[k * M2 + r * M + c] / total;
    }
  }
  return { offset: from + bottom, length, probs };
}
