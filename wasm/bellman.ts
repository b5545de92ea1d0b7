// One Bellman step of the transformed MDP (src/policy/greedy.ts bellmanStep says what it
// computes and why it sums as it does). The model's arrays are set once per call in globals.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

import { imin, ld, ldi, st, sti } from './memory';

/** Relative difference under which two action values count as tied. */
const TIE: f64 = 1e-12;

export let gS: i32 = 0;
let gB: i32 = 0;
export let gM: i32 = 0;
export let gTau: f64 = 0;
export let gCostSlope: f64 = 0;
export let gKappa: usize = 0;
export let gSojourn: usize = 0;
export let gTailFirst: usize = 0;
let gTailStart: usize = 0;
let gTailCoef: usize = 0;
/** i32 per b: 1 when serving b is an action of the model (docs/model.md §11.1). */
export let gServes: usize = 0;
export let gH: usize = 0;
export let gKeep: usize = 0;
/** Per state: the best serve's value so far, the kept action's value (serves only), the best serve. */
export let gServeValue: usize = 0;
let gKeepValue: usize = 0;
let gServe: usize = 0;
/** max h − min h (Infinity if h is not finite): what bounds every |h(y) − h(x)|. */
export let gRange: f64 = 0;
/** max |h(s, j) − h(s − 1, j)|: what bounds the rounding of a second difference. */
export let gDmax: f64 = 0;

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
  let lo: f64 = Infinity;
  let hi: f64 = -Infinity;
  for (let x = 0; x < n; x++) {
    const v = ld(h, x);
    if (!(v >= lo)) lo = v;
    if (!(v <= hi)) hi = v;
  }
  gRange = hi - lo;
  if (!(gRange < Infinity)) gRange = Infinity;
  gDmax = 0;
  for (let x = M; x < n; x++) gDmax = Math.max(gDmax, Math.abs(ld(h, x) - ld(h, x - M)));
}

/**
 * acc plus the tail terms of serving b at (s, j) (none below tailFirstState[b]), added in order;
 * with abs ≠ 0 instead the sum of their coefficients' magnitudes (for a rounding allowance).
 */
@inline export function withTail(s: i32, j: i32, b: i32, acc: f64, abs: i32): f64 {
  const M = gM;
  const first = ldi(gTailFirst, b);
  if (s < first) return acc;
  const r = ((ldi(gTailStart, b) + s - first) * M + j) * M * 3;
  const x = ld(gH, s * M + j);
  const topS = gS * M;
  const top1 = (gS - 1) * M;
  const top2 = (gS - 2) * M;
  for (let jj = 0; jj < M; jj++) {
    const c = r + jj * 3;
    if (abs != 0) acc += Math.abs(ld(gTailCoef, c)) + Math.abs(ld(gTailCoef, c + 1)) + Math.abs(ld(gTailCoef, c + 2));
    else acc += ld(gTailCoef, c) * (ld(gH, topS + jj) - x) + ld(gTailCoef, c + 1) * (ld(gH, top1 + jj) - x) + ld(gTailCoef, c + 2) * (ld(gH, top2 + jj) - x);
  }
  return acc;
}

/** The serve-b value of (s, j) from its sum Σ p·(h(y) − h(x)) inside the table, tail terms added here. */
@inline export function consider(s: i32, j: i32, b: i32, sum: f64): void {
  const M = gM;
  const at = s * M + j;
  const acc = withTail(s, j, b, sum, 0);
  const v = gCostSlope * <f64>s + ld(gKappa, b * M + j) + (gTau / ld(gSojourn, b * M + j)) * acc;
  // The least value, on exact ties the smallest batch, in whatever order the sizes come.
  const cur = ld(gServeValue, at);
  if (v < cur || (v == cur && b < ldi(gServe, at))) {
    st(gServeValue, at, v);
    sti(gServe, at, b);
  }
  if (gKeep != 0 && b == ldi(gKeep, at)) st(gKeepValue, at, v);
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
