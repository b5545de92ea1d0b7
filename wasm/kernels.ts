// AssemblyScript source of the wasm kernels (src/wasm/kernels.ts loads the binary built from it:
// `npm run build:wasm`). Each kernel is the only implementation of its loop: the TypeScript
// callers keep the bookkeeping and hand over byte addresses into the memory they import.
// The arithmetic is the same expressions in the same order as the JavaScript they replaced
// (wasm f64 is IEEE binary64 with no fused or reassociated operations), so results agree
// to the last bit.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

@inline function ld(base: usize, i: i32): f64 {
  return load<f64>(base + ((<usize>i) << 3));
}
@inline function st(base: usize, i: i32, v: f64): void {
  store<f64>(base + ((<usize>i) << 3), v);
}
@inline function ldi(base: usize, i: i32): i32 {
  return load<i32>(base + ((<usize>i) << 2));
}
@inline function sti(base: usize, i: i32, v: i32): void {
  store<i32>(base + ((<usize>i) << 2), v);
}
@inline function imin(a: i32, b: i32): i32 {
  return a < b ? a : b;
}
@inline function imax(a: i32, b: i32): i32 {
  return a > b ? a : b;
}

// ---------------------------------------------------------------------------------------------
// The elimination sweeps of a banded chain's reduction (src/policy/chainSweep.ts says what they
// do and why): envelopes, eliminations, level-to-level copies and the rebuilding of the rows
// after them. factorSetup names the arrays (byte addresses) and the shape; sweepBegin and
// sweepRun run one sweep, in slices, so that the caller can check for a cancel in between.

/** Two pivots a level apart agree when every datum differs by at most this, relative to the largest. */
const SAME: f64 = 8 * f64.EPSILON;

let fA: usize = 0; // the chain's original band
let fRed: usize = 0; // the band being reduced
let fF: usize = 0;
let fPiv: usize = 0;
let fColFrom: usize = 0;
let fColTo: usize = 0;
let fLeft: usize = 0;
let fRight: usize = 0;
let fN: i32 = 0;
let fLo: i32 = 0;
let fHi: i32 = 0;
let fRef: i32 = 0;
let fW: i32 = 0;
let fSpan: i32 = 0;
let fPeriod: i32 = 1;
let fCopied: i32 = 0;
let fFailed: i32 = -1;

export function factorSetup(
  a: usize,
  reduced: usize,
  f: usize,
  pivots: usize,
  colFrom: usize,
  colTo: usize,
  left: usize,
  right: usize,
  n: i32,
  lo: i32,
  hi: i32,
  ref: i32,
  W: i32,
  span: i32,
  period: i32,
): void {
  fA = a;
  fRed = reduced;
  fF = f;
  fPiv = pivots;
  fColFrom = colFrom;
  fColTo = colTo;
  fLeft = left;
  fRight = right;
  fN = n;
  fLo = lo;
  fHi = hi;
  fRef = ref;
  fW = W;
  fSpan = span;
  fPeriod = period;
  fCopied = 0;
  fFailed = -1;
}

/** Pivots copied since factorSetup. */
export function copiedPivots(): i32 {
  return fCopied;
}

/** The pivot that reached nothing on the reference's side (sweepRun returned 2). */
export function failedPivot(): i32 {
  return fFailed;
}

/** a[dst + e] += m·a[src + e] for e < len, unrolled by four (the same operations in the same order). */
function axpy(a: usize, dst: i32, src: i32, m: f64, len: i32): void {
  let q = a + ((<usize>dst) << 3);
  let p = a + ((<usize>src) << 3);
  let e = 0;
  for (const end = len - 3; e < end; e += 4) {
    store<f64>(q, load<f64>(q) + m * load<f64>(p));
    store<f64>(q, load<f64>(q, 8) + m * load<f64>(p, 8), 8);
    store<f64>(q, load<f64>(q, 16) + m * load<f64>(p, 16), 16);
    store<f64>(q, load<f64>(q, 24) + m * load<f64>(p, 24), 24);
    q += 32;
    p += 32;
  }
  for (; e < len; e++) {
    store<f64>(q, load<f64>(q) + m * load<f64>(p));
    q += 8;
    p += 8;
  }
}

/** The envelopes of rows [from, to) as they are in the band now: first nonzero column left of the diagonal, last one right of it. */
export function scanEnvelopes(from: i32, to: i32): void {
  const W = fW;
  const lo = fLo;
  for (let i = from; i < to; i++) {
    const r = i * W - i + lo;
    let l = imax(0, i - lo);
    while (l < i && ld(fRed, r + l) == 0) l++;
    let h = imin(fN - 1, i + fHi);
    while (h > i && ld(fRed, r + h) == 0) h--;
    sti(fLeft, i, l);
    sti(fRight, i, h);
  }
}

/**
 * Eliminates pivot k: d(k) is the sum of its row over the columns still to be eliminated on
 * the reference's side (within its envelope), and each row i it reaches gets f(i, k) =
 * a(i, k)/d(k) times its row over those columns, its envelope widened to them. False when
 * nothing on the reference's side is reachable from k.
 */
function eliminate(k: i32, dir: i32): bool {
  const a = fRed;
  const W = fW;
  const lo = fLo;
  const hi = fHi;
  const n = fN;
  const ref = fRef;
  const rk = k * W - k + lo;
  const c0 = dir > 0 ? k + 1 : imax(imax(ref, k - lo), ldi(fLeft, k));
  const c1 = dir > 0 ? imin(imin(n - 1, k + hi), ldi(fRight, k)) + 1 : k;
  let dk: f64 = 0;
  for (let j = c0; j < c1; j++) dk += ld(a, rk + j);
  if (!(Math.abs(dk) > 0)) return false;
  st(fPiv, k, dk);
  sti(fColFrom, k, c0);
  sti(fColTo, k, c1);
  const r0 = dir > 0 ? k + 1 : imax(ref, k - hi);
  const r1 = dir > 0 ? imin(n - 1, k + lo) + 1 : k;
  const fk = k * fSpan - 1 - dir * k; // f[fk + dir·i] = f(i, k)
  for (let i = r0; i < r1; i++) {
    const ri = i * W - i + lo;
    const aik = ld(a, ri + k);
    if (aik == 0) continue;
    const m = aik / dk;
    st(fF, fk + dir * i, m);
    axpy(a, ri + c0, rk + c0, m, c1 - c0);
    if (dir > 0) sti(fRight, i, imax(ldi(fRight, i), c1 - 1));
    else sti(fLeft, i, imin(ldi(fLeft, i), c0));
  }
  return true;
}

/**
 * Row i of the rest as the pivots first, first + dir, … (not reaching stop) left it: its
 * original entries plus each one's update in that order, over the columns [c0, c1) still to be
 * eliminated. The row must hold its original entries.
 */
function rebuildRow(i: i32, first: i32, stop: i32, dir: i32, c0: i32, c1: i32): void {
  const W = fW;
  const lo = fLo;
  const span = fSpan;
  const ri = i * W - i + lo;
  for (let k = first; dir > 0 ? k < stop : k > stop; k += dir) {
    const m = ld(fF, k * span - 1 + dir * (i - k));
    if (m == 0) continue;
    const from = imax(c0, ldi(fColFrom, k));
    const to = imin(c1, ldi(fColTo, k));
    if (to > from) axpy(fRed, ri + from, k * W - k + lo + from, m, to - from);
    if (dir > 0) sti(fRight, i, imax(ldi(fRight, i), ldi(fColTo, k) - 1));
    else sti(fLeft, i, imin(ldi(fLeft, i), ldi(fColFrom, k)));
  }
}

/**
 * The rows the pivots before `next` (in sweep order) updated and that are not eliminated yet,
 * brought back to what those pivots made of them: below the reference [next, next + lo),
 * above it [next − hi + 1, next].
 */
function restoreRest(next: i32, dir: i32): void {
  const n = fN;
  const lo = fLo;
  const hi = fHi;
  const W = fW;
  const from = dir > 0 ? next : imax(0, next - hi + 1);
  const to = dir > 0 ? imin(n, next + lo) : next + 1;
  if (to > from) memory.copy(fRed + ((<usize>(from * W)) << 3), fA + ((<usize>(from * W)) << 3), (<usize>((to - from) * W)) << 3);
  scanEnvelopes(from, to);
  for (let i = from; i < to; i++) {
    if (dir > 0) rebuildRow(i, imax(0, i - lo), next, 1, next, n);
    else rebuildRow(i, imin(n - 1, i + hi), next, -1, 0, next + 1);
  }
}

/** max |x − y| ≤ SAME·max |x| over two runs of `len` entries of one array. */
function close(x: usize, p: i32, q: i32, len: i32): bool {
  let big: f64 = 0;
  let diff: f64 = 0;
  for (let e = 0; e < len; e++) {
    big = Math.max(big, Math.abs(ld(x, p + e)));
    diff = Math.max(diff, Math.abs(ld(x, p + e) - ld(x, q + e)));
  }
  return diff <= SAME * big;
}

/** Whether the row that pivot k's updates reach first is, in the original band, the one a period back. */
function entersRepeated(k: i32, src: i32): bool {
  const W = fW;
  const shift = k - src;
  const entering = shift < 0 ? k - fHi : k + fLo;
  if (entering < 0 || entering >= fN || entering - shift < 0 || entering - shift >= fN) return false;
  for (let e = 0; e < W; e++) if (ld(fA, entering * W + e) != ld(fA, (entering - shift) * W + e)) return false;
  return true;
}

/** Whether pivot k repeats pivot src, a level before: its rows the same, its data within SAME (cheapest tests first). */
function repeats(k: i32, src: i32): bool {
  const W = fW;
  const span = fSpan;
  const lo = fLo;
  const dk = ld(fPiv, k);
  if (!(Math.abs(dk - ld(fPiv, src)) <= SAME * Math.abs(dk))) return false;
  if (ldi(fColFrom, k) - k != ldi(fColFrom, src) - src || ldi(fColTo, k) - k != ldi(fColTo, src) - src) return false;
  if (!entersRepeated(k, src)) return false;
  return (
    close(fF, k * span, src * span, span) &&
    close(fRed, k * W + ldi(fColFrom, k) - k + lo, src * W + ldi(fColFrom, src) - src + lo, ldi(fColTo, k) - ldi(fColFrom, k))
  );
}

function copyPivot(k: i32, src: i32): void {
  const W = fW;
  const span = fSpan;
  st(fPiv, k, ld(fPiv, src));
  sti(fColFrom, k, ldi(fColFrom, src) + k - src);
  sti(fColTo, k, ldi(fColTo, src) + k - src);
  memory.copy(fF + ((<usize>(k * span)) << 3), fF + ((<usize>(src * span)) << 3), (<usize>span) << 3);
  memory.copy(fRed + ((<usize>(k * W)) << 3), fRed + ((<usize>(src * W)) << 3), (<usize>W) << 3);
  fCopied++;
}

// The sweep in progress.
let sK: i32 = 0;
let sStop: i32 = 0;
let sDir: i32 = 1;
let sRun: i32 = 0;
let sSettle: i32 = 0;
let sLooks: bool = false;

@inline function inside(k: i32): bool {
  return sDir > 0 ? k < sStop : k > sStop;
}
/** Above the reference the copies must stay clear of the rows the sweep below it changed. */
@inline function clear(k: i32): bool {
  return sDir > 0 ? k + fSpan < fN : k - fLo - fHi > fRef;
}
function repeating(k: i32): bool {
  const src = k - sDir * fPeriod;
  return src >= 0 && src < fN && clear(k) && repeats(k, src);
}

/**
 * Starts the sweep of pivots start, start + dir, … before stop. With `resumed`, the pivots
 * before start were taken over from another factor and the rest's rows next to them still hold
 * their original entries; a run of repeating pivots among those counts as well.
 */
export function sweepBegin(start: i32, stop: i32, dir: i32, resumed: bool): void {
  sK = start;
  sStop = stop;
  sDir = dir;
  // A pivot's data depend on the original rows in its reach and on the pivots of the last lo
  // (below the reference; hi above it): once all of those repeated, so would it.
  sSettle = (dir > 0 ? fLo : fHi) + fPeriod;
  // On a chain with fewer states the look for copies would only cost.
  sLooks = fN > 2 * sSettle + fLo + fHi;
  sRun = 0;
  if (resumed) {
    for (let k = start - dir; sLooks && sRun < sSettle && k >= 0 && k < fN && repeating(k); k -= dir) sRun++;
    if (sRun < sSettle || !inside(start)) restoreRest(start, dir);
  }
}

/**
 * Up to `steps` steps of the sweep (an elimination, or a stretch of copies and the rows rebuilt
 * after it): 0 when it is done, 1 when there is more, 2 when a pivot reached nothing on the
 * reference's side (failedPivot).
 */
export function sweepRun(steps: i32): i32 {
  const period = fPeriod;
  const dir = sDir;
  let k = sK;
  for (let step = 0; step < steps; step++) {
    if (!inside(k)) {
      sK = k;
      return 0;
    }
    if (sRun >= sSettle) {
      while (inside(k) && clear(k) && entersRepeated(k, k - dir * period)) {
        copyPivot(k, k - dir * period);
        k += dir;
      }
      restoreRest(k, dir);
      sRun = 0;
      continue;
    }
    if (!eliminate(k, dir)) {
      fFailed = k;
      sK = k;
      return 2;
    }
    sRun = sLooks && repeating(k) ? sRun + 1 : 0;
    k += dir;
  }
  sK = k;
  return inside(k) ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// One Bellman step of the transformed MDP (src/policy/greedy.ts bellmanStep says what it
// computes and why it sums as it does). The model's arrays are set once per call in globals.

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

// ---------------------------------------------------------------------------------------------
// After the reduction (src/policy/chain.ts says what each computes). Vectors are n doubles.

/** Past this, the unnormalised ν is scaled down (a reference far out in a fast-decaying tail). */
const RESCALE_ABOVE: f64 = 1e200;

/** ν from the multipliers f, normalised, into nu; returns its argmax (the first one). */
export function stationary(f: usize, nu: usize, n: i32, lo: i32, hi: i32, ref: i32, span: i32): i32 {
  memory.fill(nu, 0, (<usize>n) << 3);
  st(nu, ref, 1);
  for (let k = ref + 1; k < n; k++) {
    const fk = k * span + k - 1;
    let p: f64 = 0;
    for (let i = imax(ref, k - hi); i < k; i++) p += ld(nu, i) * ld(f, fk - i);
    st(nu, k, p);
    if (p > RESCALE_ABOVE) for (let x = 0; x < n; x++) st(nu, x, ld(nu, x) / RESCALE_ABOVE);
  }
  for (let k = ref - 1; k >= 0; k--) {
    const fk = k * span - k - 1;
    let p: f64 = 0;
    const ihi = imin(n - 1, k + lo);
    for (let i = k + 1; i <= ihi; i++) p += ld(nu, i) * ld(f, fk + i);
    st(nu, k, p);
    if (p > RESCALE_ABOVE) for (let x = 0; x < n; x++) st(nu, x, ld(nu, x) / RESCALE_ABOVE);
  }
  let total: f64 = 0;
  let mode = ref;
  for (let k = 0; k < n; k++) {
    total += ld(nu, k);
    if (ld(nu, k) > ld(nu, mode)) mode = k;
  }
  for (let k = 0; k < n; k++) st(nu, k, ld(nu, k) / total);
  return mode;
}

/** The elimination's updates applied to v in place: each eliminated state k passes f(i, k) of its entry to the rows i it connected to. */
export function forwardSubstitute(f: usize, v: usize, n: i32, lo: i32, hi: i32, ref: i32, span: i32): void {
  for (let k = 0; k < ref; k++) {
    const vk = ld(v, k);
    if (vk == 0) continue;
    const fk = k * span - k - 1;
    const ihi = imin(n - 1, k + lo);
    for (let i = k + 1; i <= ihi; i++) st(v, i, ld(v, i) + ld(f, fk + i) * vk);
  }
  for (let k = n - 1; k > ref; k--) {
    const vk = ld(v, k);
    if (vk == 0) continue;
    const fk = k * span + k - 1;
    for (let i = imax(ref, k - hi); i < k; i++) st(v, i, ld(v, i) + ld(f, fk - i) * vk);
  }
}

/** h from the reduced system into values, in reverse elimination order (h(ref) = 0). */
export function backSubstitute(a: usize, d: usize, reward: usize, time: usize, values: usize, n: i32, lo: i32, hi: i32, ref: i32, W: i32, gain: f64): void {
  memory.fill(values, 0, (<usize>n) << 3);
  for (let k = ref + 1; k < n; k++) {
    const rk = k * W - k + lo;
    let acc = ld(reward, k) - gain * ld(time, k);
    for (let j = imax(ref, k - lo); j < k; j++) acc += ld(a, rk + j) * ld(values, j);
    st(values, k, acc / ld(d, k));
  }
  for (let k = ref - 1; k >= 0; k--) {
    const rk = k * W - k + lo;
    let acc = ld(reward, k) - gain * ld(time, k);
    const jhi = imin(n - 1, k + hi);
    for (let j = k + 1; j <= jhi; j++) acc += ld(a, rk + j) * ld(values, j);
    st(values, k, acc / ld(d, k));
  }
}

/** r(s) = c(s) − g·y(s) + Σ_j p(s,j)·(h(j) − h(s)) on the original band a. */
export function residual(a: usize, reward: usize, time: usize, h: usize, r: usize, n: i32, lo: i32, hi: i32, W: i32, g: f64): void {
  for (let s = 0; s < n; s++) {
    const rs = s * W - s + lo;
    const hs = ld(h, s);
    let acc: f64 = 0;
    const jlo = imax(0, s - lo);
    const jhi = imin(n - 1, s + hi);
    for (let j = jlo; j <= jhi; j++) {
      const p = ld(a, rs + j);
      if (p != 0) acc += p * (ld(h, j) - hs);
    }
    st(r, s, ld(reward, s) - g * ld(time, s) + acc);
  }
}

/** h += dh over n entries. */
export function addInto(h: usize, dh: usize, n: i32): void {
  for (let s = 0; s < n; s++) st(h, s, ld(h, s) + ld(dh, s));
}

// ---------------------------------------------------------------------------------------------
// Building chains (src/policy/stateChain.ts buildStateChain, src/policy/modelChain.ts writeRow).

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
