// Building chains and models (src/policy/stateChain.ts buildStateChain, src/policy/modelChain.ts writeRow,
// src/model/compile.ts tailCoefficients).

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

import { imax, imin, ld, ldi, st, sti } from './memory';

/**
 * Adds prob × the arrival-count law at probs[base…] (L counts × M end phases, count-major) to
 * the band from element `row`: count k lands on level min(first + k, top), end phase jj at
 * element row + ((level·M + jj)·modes + mode), in the order of k.
 */
export function addServeLaw(band: usize, row: i32, probs: usize, base: i32, L: i32, M: i32, first: i32, top: i32, modes: i32, mode: i32, prob: f64): void {
  for (let k = 0; k < L; k++) {
    const to = imin(first + k, top) * M;
    for (let jj = 0; jj < M; jj++) {
      const x = row + (to + jj) * modes + mode;
      st(band, x, ld(band, x) + prob * ld(probs, base + k * M + jj));
    }
  }
}

/** x[dst + e] += y[src + e] for e < len. */
export function addRun(x: usize, dst: i32, y: usize, src: i32, len: i32): void {
  for (let e = 0; e < len; e++) st(x, dst + e, ld(x, dst + e) + ld(y, src + e));
}

// ---------------------------------------------------------------------------------------------
// The tail extrapolation's coefficients (src/model/compile.ts tailCoefficients says what they are).

/**
 * Per b ≤ B and s from tailFirstState[b] to S, per (j, j'): the coefficients on h(S), h(S−1),
 * h(S−2) of the overflow of serving b at s, from the overflow moments m0, m1, m2 of the arrival
 * table (offset, start, length per b), into tailCoef at 3·(((tailStart[b] + s − first)·M + j)·M + j').
 */
export function tailCoefficients(
  offset: usize,
  start: usize,
  length: usize,
  m0: usize,
  m1: usize,
  m2: usize,
  tailFirstState: usize,
  tailStart: usize,
  tailCoef: usize,
  B: i32,
  M: i32,
  S: i32,
): void {
  for (let b = 1; b <= B; b++) {
    const L = ldi(length, b);
    const first = ldi(tailFirstState, b);
    for (let s = first; s <= S; s++) {
      // Overflow starts at k0 = S − (s − b) + 1; m = k − k0 + 1 = s − b + k − S.
      let i = S - (s - b) + 1 - ldi(offset, b);
      let shift = 0;
      if (i < 0) {
        shift = -i;
        i = 0;
      }
      for (let j = 0; j < M; j++) {
        for (let jj = 0; jj < M; jj++) {
          const at = ldi(start, b) + (j * L + i) * M + jj;
          const a0 = ld(m0, at);
          const a1 = ld(m1, at) + <f64>shift * a0;
          const a2 = ld(m2, at) + <f64>(2 * shift) * ld(m1, at) + <f64>(shift * shift) * a0;
          const q = (a2 + a1) / 2;
          const r = (((ldi(tailStart, b) + s - first) * M + j) * M + jj) * 3;
          st(tailCoef, r, a0 + a1 + q);
          st(tailCoef, r + 1, -a1 - 2 * q);
          st(tailCoef, r + 2, q);
        }
      }
    }
  }
}
