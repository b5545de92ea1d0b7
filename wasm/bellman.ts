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
let gHx: usize = 0;
let gServeValue: usize = 0;
let gServe: usize = 0;
let gKeepValue: usize = 0;

/** The model's scalars and arrays (byte addresses) for the next bellmanLevels calls; keep = 0: none. */
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
  scratch: usize,
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
  // Per phase of the level at hand: h there, the best serve so far, the kept action's value, the best serve.
  gHx = scratch;
  gServeValue = scratch + ((<usize>M) << 3);
  gKeepValue = scratch + ((<usize>(2 * M)) << 3);
  gServe = scratch + ((<usize>(3 * M)) << 3);
}

/** The serve-b value of (s, j) from its sum Σ p·(h(y) − h(x)) inside the table, tail terms added here. */
@inline function consider(s: i32, j: i32, b: i32, sum: f64): void {
  const M = gM;
  let acc = sum;
  const first = ldi(gTailFirst, b);
  if (s >= first) {
    const r = ((ldi(gTailStart, b) + s - first) * M + j) * M * 3;
    const x = ld(gHx, j);
    const topS = gS * M;
    const top1 = (gS - 1) * M;
    const top2 = (gS - 2) * M;
    for (let jj = 0; jj < M; jj++) {
      const c = r + jj * 3;
      acc += ld(gTailCoef, c) * (ld(gH, topS + jj) - x) + ld(gTailCoef, c + 1) * (ld(gH, top1 + jj) - x) + ld(gTailCoef, c + 2) * (ld(gH, top2 + jj) - x);
    }
  }
  const v = gCostSlope * <f64>s + ld(gKappa, b * M + j) + (gTau / ld(gSojourn, b * M + j)) * acc;
  if (v < ld(gServeValue, j)) {
    st(gServeValue, j, v);
    sti(gServe, j, b);
  }
  if (gKeep != 0 && b == ldi(gKeep, s * M + j)) st(gKeepValue, j, v);
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
 * Levels [s0, s1) of one Bellman step at the values set by bellmanModel: gap and policy (and,
 * with waits ≠ 0, each state's wait value, Infinity at S). The arrays are byte addresses.
 */
export function bellmanLevels(
  waitRate: usize,
  phaseRate: usize,
  pmfOffset: usize,
  pmfStart: usize,
  pmfLength: usize,
  pmf: usize,
  gap: usize,
  policy: usize,
  waits: usize,
  s0: i32,
  s1: i32,
): void {
  const S = gS;
  const B = gB;
  const M = gM;
  const h = gH;
  const keep = gKeep;
  for (let s = s0; s < s1; s++) {
    const hold = gCostSlope * <f64>s;
    const row = s * M;
    const bmax = s < B ? s : B;
    for (let j = 0; j < M; j++) {
      st(gHx, j, ld(h, row + j));
      st(gServeValue, j, Infinity);
      sti(gServe, j, 0);
      st(gKeepValue, j, Infinity);
    }
    for (let b = 1; b <= bmax; b++) {
      if (ldi(gServes, b) == 0) continue; // not an action of this model
      const L = ldi(pmfLength, b);
      const j0 = s - b + ldi(pmfOffset, b);
      let nIn = S - j0 + 1;
      if (nIn > L) nIn = L;
      const hBase = j0 * M;
      const len = nIn * M;
      if (M == 1) {
        consider(s, 0, b, sumAgainst(pmf, ldi(pmfStart, b), h, hBase, len, ld(gHx, 0)));
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
        const x0 = ld(gHx, j);
        const x1 = ld(gHx, j1);
        const x2 = ld(gHx, j2);
        const x3 = ld(gHx, j3);
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
    for (let j = 0; j < M; j++) {
      const x = row + j;
      const hxj = ld(gHx, j);
      let waitValue: f64 = Infinity;
      if (s < S) {
        let drift = ld(waitRate, j) * (ld(h, x + M) - hxj);
        for (let jj = 0; jj < M; jj++) if (jj != j) drift += ld(phaseRate, j * M + jj) * (ld(h, row + jj) - hxj);
        waitValue = hold + ld(gKappa, j) + drift;
      }
      if (waits != 0) st(waits, x, waitValue);
      const kept = keep != 0 ? ldi(keep, x) : -1;
      const keptValue = kept == 0 ? waitValue : ld(gKeepValue, j);
      // Near-ties go to serving; policy iteration keeps its current action on near-ties, except
      // that a kept wait never displaces a tied serve (greedy.ts says why).
      let best = waitValue;
      let arg = 0;
      const sv = ld(gServeValue, j);
      const sb = ldi(gServe, j);
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
