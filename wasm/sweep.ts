// The elimination sweeps of a banded chain's reduction (src/policy/chainSweep.ts says what they
// do and why): envelopes, eliminations, level-to-level copies and the rebuilding of the rows
// after them. factorSetup names the arrays (byte addresses) and the shape; sweepBegin and
// sweepRun run one sweep, in slices, so that the caller can check for a cancel in between.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

import { imax, imin, ld, ldi, st, sti } from './memory';

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
