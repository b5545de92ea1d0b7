// One Bellman step of the transformed MDP (src/policy/greedy.ts bellmanStep says what it
// computes and why it sums as it does). The model's arrays are set once per call in globals.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

import { imax, imin, ld, ldi, st, sti } from './memory';

/** Relative difference under which two action values count as tied. */
const TIE: f64 = 1e-12;

let gS: i32 = 0;
let gB: i32 = 0;
let gM: i32 = 0;
let gTau: f64 = 0;
let gCostSlope: f64 = 0;
let gKappa: usize = 0;
let gSojourn: usize = 0;
let gTailFirst: usize = 0;
let gTailStart: usize = 0;
let gTailCoef: usize = 0;
/** i32 per b: 1 when serving b is an action of the model (docs/model.md §11.1). */
let gServes: usize = 0;
let gH: usize = 0;
let gKeep: usize = 0;
/** Per state: the best serve's value so far, the kept action's value (serves only), the best serve. */
let gServeValue: usize = 0;
let gKeepValue: usize = 0;
let gServe: usize = 0;

/**
 * The model's scalars and arrays (byte addresses) for the next bellmanServes, bellmanCascade
 * and bellmanFinish calls; keep = 0: none. serveValue, keepValue (f64) and serve (i32) hold one
 * entry per state and are cleared here: the serve passes fill them, bellmanFinish reads them.
 */
export function bellmanModel(
  S: i32,
  B: i32,
  M: i32,
  tau: f64,
  costSlope: f64,
  kappa: usize,
  sojourn: usize,
  tailFirstState: usize,
  tailStart: usize,
  tailCoef: usize,
  serves: usize,
  h: usize,
  keep: usize,
  serveValue: usize,
  keepValue: usize,
  serve: usize,
): void {
  gS = S;
  gB = B;
  gM = M;
  gTau = tau;
  gCostSlope = costSlope;
  gKappa = kappa;
  gSojourn = sojourn;
  gTailFirst = tailFirstState;
  gTailStart = tailStart;
  gTailCoef = tailCoef;
  gServes = serves;
  gH = h;
  gKeep = keep;
  gServeValue = serveValue;
  gKeepValue = keepValue;
  gServe = serve;
  const n = (S + 1) * M;
  for (let x = 0; x < n; x++) {
    st(serveValue, x, Infinity);
    st(keepValue, x, Infinity);
  }
  memory.fill(serve, 0, (<usize>n) << 2);
}

/** The serve-b value of (s, j) from its sum Σ p·(h(y) − h(x)) inside the table, tail terms added here. */
@inline function consider(s: i32, j: i32, b: i32, sum: f64): void {
  const M = gM;
  const at = s * M + j;
  let acc = sum;
  const first = ldi(gTailFirst, b);
  if (s >= first) {
    const r = ((ldi(gTailStart, b) + s - first) * M + j) * M * 3;
    const x = ld(gH, at);
    const topS = gS * M;
    const top1 = (gS - 1) * M;
    const top2 = (gS - 2) * M;
    for (let jj = 0; jj < M; jj++) {
      const c = r + jj * 3;
      acc += ld(gTailCoef, c) * (ld(gH, topS + jj) - x) + ld(gTailCoef, c + 1) * (ld(gH, top1 + jj) - x) + ld(gTailCoef, c + 2) * (ld(gH, top2 + jj) - x);
    }
  }
  const v = gCostSlope * <f64>s + ld(gKappa, b * M + j) + (gTau / ld(gSojourn, b * M + j)) * acc;
  if (v < ld(gServeValue, at)) {
    st(gServeValue, at, v);
    sti(gServe, at, b);
  }
  if (gKeep != 0 && b == ldi(gKeep, at)) st(gKeepValue, at, v);
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
 * The serve values of levels [s0, s1) by direct sums over the arrival table (pmfOffset,
 * pmfStart, pmfLength, pmf: byte addresses), into the per-state arrays of bellmanModel.
 */
export function bellmanServes(pmfOffset: usize, pmfStart: usize, pmfLength: usize, pmf: usize, s0: i32, s1: i32): void {
  const S = gS;
  const B = gB;
  const M = gM;
  const h = gH;
  for (let s = s0; s < s1; s++) {
    const row = s * M;
    const bmax = s < B ? s : B;
    for (let b = 1; b <= bmax; b++) {
      if (ldi(gServes, b) == 0) continue; // not an action of this model
      const L = ldi(pmfLength, b);
      const j0 = s - b + ldi(pmfOffset, b);
      let nIn = S - j0 + 1;
      if (nIn > L) nIn = L;
      const hBase = j0 * M;
      const len = nIn * M;
      if (M == 1) {
        consider(s, 0, b, sumAgainst(pmf, ldi(pmfStart, b), h, hBase, len, ld(h, row)));
        continue;
      }
      // The phases of a level read the same window of h: four at a time in one pass, each in its
      // own accumulator (a phase past M repeats the last one).
      for (let j = 0; j < M; j += 4) {
        const j1 = imin(j + 1, M - 1);
        const j2 = imin(j + 2, M - 1);
        const j3 = imin(j + 3, M - 1);
        const start = ldi(pmfStart, b);
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
        consider(s, j, b, a0);
        if (j1 > j) consider(s, j1, b, a1);
        if (j2 > j1) consider(s, j2, b, a2);
        if (j3 > j2) consider(s, j3, b, a3);
      }
    }
  }
}

/**
 * The serve-b values of every level by the backward recurrence of a count law that is the sum
 * of `shape` geometric laws of ratio r = ratio[b], 1 − r = complement[b] (one phase only;
 * docs/model.md §3.2). With u = s − b and D(y) = h(y) − h(y−1), stage k = 1..shape keeps
 *   m_k(u) = P(K_k ≤ S − u),   R_k(u) = Σ_{i ≤ S−u} P(K_k = i)·(h(u + i) − h(u)),
 * from m_k(S) = (1 − r)^k, R_k(S) = 0 (m_0 = 1, R_0 = 0) down to u = 0:
 *   m_k(u) = (1 − r)·m_{k−1}(u) + r·m_k(u+1)
 *   R_k(u) = (1 − r)·R_{k−1}(u) + r·(R_k(u+1) + m_k(u+1)·D(u+1)),
 * convex combinations, so a rounding error is damped by r at every later step; the in-table
 * sum of serving b at s is R(u) + m(u)·(h(u) − h(s)), the tail terms are added by consider.
 * `state` holds 2·shape doubles.
 */
export function bellmanCascade(ratio: usize, complement: usize, shape: i32, state: usize, b: i32): void {
  if (ldi(gServes, b) == 0) return;
  const S = gS;
  const h = gH;
  const r = ld(ratio, b);
  const c = ld(complement, b);
  let m0: f64 = 1;
  for (let k = 0; k < shape; k++) {
    m0 *= c;
    st(state, k, 0);
    st(state, shape + k, m0);
  }
  for (let u = S - 1; u >= 0; u--) {
    const d = ld(h, u + 1) - ld(h, u);
    let R: f64 = 0;
    let m: f64 = 1;
    for (let k = 0; k < shape; k++) {
      const above = ld(state, shape + k);
      R = c * R + r * (ld(state, k) + above * d);
      m = c * m + r * above;
      st(state, k, R);
      st(state, shape + k, m);
    }
    const s = u + b;
    if (s <= S) consider(s, 0, b, R + m * (ld(h, u) - ld(h, s)));
  }
}

/**
 * The Bellman step once the serve passes have run: each state's wait value,
 * the choice among it, the best serve and the kept action, into gap and policy (and, with
 * waits ≠ 0, each state's wait value, Infinity at S). The arrays are byte addresses.
 */
export function bellmanFinish(waitRate: usize, phaseRate: usize, gap: usize, policy: usize, waits: usize): void {
  const S = gS;
  const M = gM;
  const h = gH;
  const keep = gKeep;
  for (let s = 0; s <= S; s++) {
    const hold = gCostSlope * <f64>s;
    const row = s * M;
    for (let j = 0; j < M; j++) {
      const x = row + j;
      const hxj = ld(h, x);
      let waitValue: f64 = Infinity;
      if (s < S) {
        let drift = ld(waitRate, j) * (ld(h, x + M) - hxj);
        for (let jj = 0; jj < M; jj++) if (jj != j) drift += ld(phaseRate, j * M + jj) * (ld(h, row + jj) - hxj);
        waitValue = hold + ld(gKappa, j) + drift;
      }
      if (waits != 0) st(waits, x, waitValue);
      const kept = keep != 0 ? ldi(keep, x) : -1;
      const keptValue = kept == 0 ? waitValue : ld(gKeepValue, x);
      // Near-ties go to serving; policy iteration keeps its current action on near-ties, except
      // that a kept wait never displaces a tied serve (greedy.ts says why).
      let best = waitValue;
      let arg = 0;
      const sv = ld(gServeValue, x);
      const sb = ldi(gServe, x);
      if (sb > 0 && (waitValue == Infinity || sv <= waitValue + TIE * Math.max(Math.abs(sv), Math.abs(waitValue)))) {
        best = sv;
        arg = sb;
      }
      if (kept >= 0 && kept != arg && keptValue - best <= TIE * Math.abs(best) && !(kept == 0 && arg > 0)) {
        best = keptValue;
        arg = kept;
      }
      st(gap, x, best);
      sti(policy, x, arg);
    }
  }
}
