// The serve values by direct sums over the arrival table, the step's O(S·B·pmf) part, and the
// sums it may skip (wasm/prune.ts, docs/model.md §3.2 "Skipped serve sums"). The model's
// globals are bellman.ts's.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

import { consider, withTail, gCostSlope, gDmax, gH, gKappa, gKeep, gM, gRange, gS, gServes, gServeValue, gSojourn, gTau, gTailFirst } from './bellman';
import { imin, ld, ldi, st } from './memory';
import { diff, EPS, shiftAllowance, sumAllowance, windowMin, windowReset } from './prune';

/** Serve sums (one per state, phase and size) formed and skipped by this instance so far. */
let gExact: f64 = 0;
let gSkipped: f64 = 0;

/** The count of serve sums formed (formed ≠ 0) or skipped so far: callers take differences. */
export function bellmanCount(formed: i32): f64 {
  return formed != 0 ? gExact : gSkipped;
}

/** Σ_e p[pBase + e]·(h[hBase + e] − hx) over e < len, unrolled by four (the terms added in order). */
@inline function sumAgainst(p: usize, pBase: i32, h: usize, hBase: i32, len: i32, hx: f64): f64 {
  let acc: f64 = 0;
  let e = 0;
  let a = p + ((<usize>pBase) << 3);
  let b = h + ((<usize>hBase) << 3);
  for (const end = len - 3; e < end; e += 4) {
    acc += load<f64>(a) * (load<f64>(b) - hx);
    acc += load<f64>(a, 8) * (load<f64>(b, 8) - hx);
    acc += load<f64>(a, 16) * (load<f64>(b, 16) - hx);
    acc += load<f64>(a, 24) * (load<f64>(b, 24) - hx);
    a += 32;
    b += 32;
  }
  for (; e < len; e++) {
    acc += load<f64>(a) * (load<f64>(b) - hx);
    a += 8;
    b += 8;
  }
  return acc;
}

/**
 * The in-table serve-b sums of level s for the phases j, j + 1, j + 2, j + 3 (a phase past M
 * repeats the last one; M = 1: phase 0 alone), each handed to consider and kept in sums[phase].
 */
@inline function serveSums(pmf: usize, start: i32, L: i32, s: i32, b: i32, j: i32, hBase: i32, len: i32, sums: usize): void {
  const M = gM;
  const h = gH;
  const row = s * M;
  if (M == 1) {
    const a = sumAgainst(pmf, start, h, hBase, len, ld(h, row));
    st(sums, 0, a);
    consider(s, 0, b, a);
    return;
  }
  // The phases of a level read the same window of h: four at a time in one pass, each in its
  // own accumulator.
  const j1 = imin(j + 1, M - 1);
  const j2 = imin(j + 2, M - 1);
  const j3 = imin(j + 3, M - 1);
  const p0 = pmf + ((<usize>(start + j * L * M)) << 3);
  const p1 = pmf + ((<usize>(start + j1 * L * M)) << 3);
  const p2 = pmf + ((<usize>(start + j2 * L * M)) << 3);
  const p3 = pmf + ((<usize>(start + j3 * L * M)) << 3);
  const x0 = ld(h, row + j);
  const x1 = ld(h, row + j1);
  const x2 = ld(h, row + j2);
  const x3 = ld(h, row + j3);
  let a0: f64 = 0;
  let a1: f64 = 0;
  let a2: f64 = 0;
  let a3: f64 = 0;
  const hb = h + ((<usize>hBase) << 3);
  for (let e = 0; e < len; e++) {
    const o = (<usize>e) << 3;
    const y = load<f64>(hb + o);
    a0 += load<f64>(p0 + o) * (y - x0);
    a1 += load<f64>(p1 + o) * (y - x1);
    a2 += load<f64>(p2 + o) * (y - x2);
    a3 += load<f64>(p3 + o) * (y - x3);
  }
  st(sums, j, a0);
  consider(s, j, b, a0);
  if (j1 > j) {
    st(sums, j1, a1);
    consider(s, j1, b, a1);
  }
  if (j2 > j1) {
    st(sums, j2, a2);
    consider(s, j2, b, a2);
  }
  if (j3 > j2) {
    st(sums, j3, a3);
    consider(s, j3, b, a3);
  }
}

/**
 * The serve-b values of every level b..S by direct sums over the arrival table (pmfOffset,
 * pmfStart, pmfLength, pmf: byte addresses), into the per-state arrays of bellmanModel.
 * With prune ≠ 0, a sum that provably cannot beat the best serve already found at its state
 * is skipped (docs/model.md §3.2, "Skipped serve sums"): the in-table sums
 * T(s) = Σ_e p_e·(h(y_e) − h(x)) of consecutive levels differ by
 *   Δ(s) = Σ_e p_e·D(y_e) − P(s)·D(x) − Σ_{e dropped at S} p_e·(h(y'_e) − h(x'))
 *        ≥ P(s)·(min D − D(x)) − Σ_{e dropped at S} p_e·(h(y'_e) − h(x')),
 * and, where no window reaches past S, Δ(s) − Δ(s−1) ≥ P·(min D2 − D2(x)) (x, x' the states at
 * s and s − 1, y_e their targets, P(s) the mass in the window, D and D2 h's first and second
 * level differences, the minima over the window): from the last sum formed, these carry a
 * lower bound on T up the levels; the tail terms are added exactly.
 * work holds 4·M + M·(L + 1) doubles, queue 2·(S + 1)·M i32 (the two windows).
 */
export function bellmanServes(pmfOffset: usize, pmfStart: usize, pmfLength: usize, pmf: usize, b: i32, prune: i32, work: usize, queue: usize): void {
  if (ldi(gServes, b) == 0) return; // not an action of this model
  const S = gS;
  const M = gM;
  const h = gH;
  const L = ldi(pmfLength, b);
  const off = ldi(pmfOffset, b);
  const start = ldi(pmfStart, b);
  const first = ldi(gTailFirst, b);
  const f = (<usize>M) << 3;
  const lbT = work; // lower bounds on T(s), per phase
  const lbD = work + f; // lower bounds on Δ(s)
  const prev = work + 2 * f; // the sum formed at s − 1, NaN if skipped
  const sums = work + 3 * f; // the sums formed at s
  const pref = work + 4 * f; // per phase, the mass of the first n levels, n = 0..L
  const queue2 = queue + ((<usize>((S + 1) * M)) << 2);
  const full = L * M;
  // The bounds need p ≥ 0 (Σ p·D ≥ P·min D); a row with a negative entry keeps every sum.
  let usable = prune != 0 && M <= 31 && gRange < Infinity;
  for (let j = 0; j < M && usable; j++) {
    let P: f64 = 0;
    st(pref, j * (L + 1), 0);
    for (let e = 0; e < full; e++) {
      const p = ld(pmf, start + j * full + e);
      if (!(p >= 0)) usable = false;
      P += p;
      if ((e + 1) % M == 0) st(pref, j * (L + 1) + (e + 1) / M, P);
    }
  }
  const whole = sumAllowance(full, gRange);
  const slack2 = 2 * EPS * gDmax; // the rounding of one D2
  windowReset();
  let bounded = false; // lbT, lbD hold bounds at the previous level
  let lenBefore = 0;
  for (let s = b; s <= S; s++) {
    const j0 = s - b + off;
    let nIn = S - j0 + 1;
    if (nIn > L) nIn = L;
    const hBase = j0 * M;
    const len = nIn * M;
    const at0 = s * M;
    let skip = 0; // bit j: phase j's sum is skipped
    const shifted = bounded && len > 0; // lbT, lbD now bound level s
    if (shifted) {
      const minD = windowMin(h, M, hBase, hBase + len, queue, 1);
      const second = j0 >= 2 && s < first; // no window past S at s − 1 and s: no drops
      const minD2 = second ? windowMin(h, M, hBase, hBase + len, queue2, 2) : 0;
      for (let j = 0; j < M; j++) {
        const at = at0 + j;
        const P = ld(pref, j * (L + 1) + nIn);
        const d = diff(h, M, at, 1);
        let dT = P * (minD - d);
        dT -= shiftAllowance(full, minD, d, 0) + 2 * EPS * Math.abs(dT);
        // The entries of the window at s − 1 that now fall past S: their terms, exactly.
        const xBefore = ld(h, at - M);
        for (let e = len; e < lenBefore; e++) {
          const t = ld(pmf, start + j * full + e) * (ld(h, hBase - M + e) - xBefore);
          dT -= t + 8 * EPS * Math.abs(t) + 4 * EPS * Math.abs(dT);
        }
        const below = ld(lbD, j);
        if (second && below > -Infinity) {
          const d2 = diff(h, M, at, 2);
          let dT2 = P * (minD2 - d2);
          dT2 = below + (dT2 - shiftAllowance(full, minD2, d2, slack2) - 2 * EPS * Math.abs(dT2));
          dT2 -= 4 * EPS * Math.abs(dT2);
          if (dT2 > dT) dT = dT2;
        }
        st(lbD, j, dT);
        let bound = ld(lbT, j) + dT;
        bound -= 4 * EPS * Math.abs(bound);
        st(lbT, j, bound);
        if (gKeep != 0 && ldi(gKeep, at) == b) continue; // the kept action's value is always formed
        const best = ld(gServeValue, at);
        const r = gTau / ld(gSojourn, b * M + j);
        const c = gCostSlope * <f64>s + ld(gKappa, b * M + j);
        // The tail terms as consider adds them, and what their rounding may shift the value by.
        const total = withTail(s, j, b, bound, 0);
        const tail = <f64>(6 * M + 16) * EPS * 2 * (withTail(s, j, b, 0, 1) + 1) * gRange;
        const margin = r * (whole + tail) + 8 * EPS * (Math.abs(c) + r * (Math.abs(bound) + Math.abs(total) + gRange) + Math.abs(best));
        if (c + r * total - margin > best) skip |= 1 << j;
      }
    }
    const step = M == 1 ? 1 : 4;
    for (let j = 0; j < M; j += step) {
      const group = step == 1 ? 1 : ((1 << imin(4, M - j)) - 1) << j;
      const last = imin(j + step, M);
      if ((skip & group) == group) {
        gSkipped += <f64>(last - j);
        for (let k = j; k < last; k++) st(prev, k, NaN);
        continue;
      }
      gExact += <f64>(last - j);
      serveSums(pmf, start, L, s, b, j, hBase, len, sums);
      for (let k = j; k < last; k++) {
        const a = ld(sums, k);
        const p = ld(prev, k);
        let dT = shifted ? ld(lbD, k) : -Infinity;
        if (shifted && p == p) {
          // Both levels formed: their difference, less both sums' rounding.
          let exact = a - p;
          exact -= 2 * whole + 4 * EPS * Math.abs(exact);
          if (exact > dT) dT = exact;
        }
        st(lbD, k, dT);
        st(lbT, k, a - whole);
        st(prev, k, a);
      }
    }
    bounded = usable && len > 0;
    lenBefore = len;
  }
}
