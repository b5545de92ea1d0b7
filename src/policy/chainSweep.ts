import { throwIfAborted } from '../model/errors.js';
import type { BandChain } from './band.js';

/**
 * The elimination sweeps of a banded chain's reduction (chainFactor.ts puts them together).
 *
 * Pivot k is eliminated towards the reference: dir = +1 below it (the rest lies above k),
 * −1 above it. Its row is added into the others only over its envelope (first to last nonzero
 * column, tracked through the fill), which changes no rounding: a row serving a batch far
 * below B, or whose arrival counts start past 0, reaches less far than the band.
 *
 * Level-homogeneous stretches. Where the rows repeat from level to level (the same actions
 * in every phase, far from the truncation), the rows the elimination leaves behind converge
 * to a fixed point: they are the censored chain of the rest, whose dependence on the far end
 * dies out within some hundred levels, however slowly the queue's tail decays. Once the
 * pivots agree with the ones a level (`period` states) before to a few ulps, for as many
 * pivots as a pivot's data depend on, the sweep copies each next pivot from the one a level
 * before instead of eliminating it (O(band) instead of O(lo·hi)), and at the end of the
 * stretch rebuilds the rows the copies would have updated from their original values. The
 * copies differ from an elimination only by the rounding noise the check allows.
 */
export interface ChainFactor {
  readonly n: number;
  readonly lo: number;
  readonly hi: number;
  /** The state eliminated last. */
  readonly ref: number;
  /** The band after the elimination (pivot k's row is final from its elimination on). */
  readonly reduced: Float64Array;
  readonly pivots: Float64Array;
  /**
   * Multipliers f(i, k) = a(i, k)/d(k), contiguous per pivot at f[k·span + dir·(i − k) − 1],
   * so that the substitutions replay them row by row.
   */
  readonly f: Float64Array;
  readonly span: number;
  /** Columns [colFrom[k], colTo[k]) that pivot k's row was added over. */
  readonly colFrom: Int32Array;
  readonly colTo: Int32Array;
  /** Pivots copied from the level before (level-homogeneous stretches) rather than eliminated. */
  copied: number;
  /** Set when a later factorisation took over the arrays. */
  consumed: boolean;
}

/** A factor being built, with the rows' envelopes: first nonzero column left of the diagonal, last one right of it. */
export interface Work extends ChainFactor {
  readonly W: number;
  readonly left: Int32Array;
  readonly right: Int32Array;
}

/** Raised when the chosen reference cannot be reached from a state that is recurrent. */
export class UnreachableReference extends Error {
  constructor(readonly state: number) {
    super(`state ${state} cannot reach the reference`);
  }
}

/** Two pivots a level apart agree when every datum differs by at most this, relative to the largest. */
const SAME = 8 * Number.EPSILON;

/** a[dst + e] += m·a[src + e] for e < len, unrolled by four (the same operations in the same order). */
function axpy(a: Float64Array, dst: number, src: number, m: number, len: number): void {
  let e = 0;
  for (const end = len - 3; e < end; e += 4) {
    const p = src + e;
    const q = dst + e;
    a[q] += m * a[p];
    a[q + 1] += m * a[p + 1];
    a[q + 2] += m * a[p + 2];
    a[q + 3] += m * a[p + 3];
  }
  for (; e < len; e++) a[dst + e] += m * a[src + e];
}

/** The envelopes of rows [from, to) as they are in the band now. */
export function scanEnvelopes(w: Work, from: number, to: number): void {
  const { reduced: a, W, lo } = w;
  for (let i = from; i < to; i++) {
    const r = i * W - i + lo;
    let l = Math.max(0, i - lo);
    while (l < i && a[r + l] === 0) l++;
    let h = Math.min(w.n - 1, i + w.hi);
    while (h > i && a[r + h] === 0) h--;
    w.left[i] = l;
    w.right[i] = h;
  }
}

function eliminate(w: Work, k: number, dir: 1 | -1): void {
  const { reduced: a, W, lo, hi, n, ref, f, span } = w;
  const rk = k * W - k + lo;
  const c0 = dir > 0 ? k + 1 : Math.max(ref, k - lo, w.left[k]);
  const c1 = dir > 0 ? Math.min(n - 1, k + hi, w.right[k]) + 1 : k;
  let dk = 0;
  for (let j = c0; j < c1; j++) dk += a[rk + j];
  // Nothing on the side of the reference is reachable from k: the chain stays on the other
  // side from there on, so k is recurrent and the reference transient; k is the one to use.
  if (!(Math.abs(dk) > 0)) throw new UnreachableReference(k);
  w.pivots[k] = dk;
  w.colFrom[k] = c0;
  w.colTo[k] = c1;
  const r0 = dir > 0 ? k + 1 : Math.max(ref, k - hi);
  const r1 = dir > 0 ? Math.min(n - 1, k + lo) + 1 : k;
  const fk = k * span - 1 - dir * k; // f[fk + dir·i] = f(i, k)
  for (let i = r0; i < r1; i++) {
    const ri = i * W - i + lo;
    const aik = a[ri + k];
    if (aik === 0) continue;
    const m = aik / dk;
    f[fk + dir * i] = m;
    axpy(a, ri + c0, rk + c0, m, c1 - c0);
    if (dir > 0) w.right[i] = Math.max(w.right[i], c1 - 1);
    else w.left[i] = Math.min(w.left[i], c0);
  }
}

/**
 * Row i of the rest as the pivots first, first + dir, … (not reaching stop) left it: its
 * original entries plus each one's update in that order, over the columns [c0, c1) still to be
 * eliminated (the others were read off already). The row must hold its original entries.
 */
function rebuildRow(w: Work, i: number, first: number, stop: number, dir: 1 | -1, c0: number, c1: number): void {
  const { reduced: a, W, lo, f, span } = w;
  const ri = i * W - i + lo;
  for (let k = first; dir > 0 ? k < stop : k > stop; k += dir) {
    const m = f[k * span - 1 + dir * (i - k)];
    if (m === 0) continue;
    const from = Math.max(c0, w.colFrom[k]);
    const to = Math.min(c1, w.colTo[k]);
    if (to > from) axpy(a, ri + from, k * W - k + lo + from, m, to - from);
    if (dir > 0) w.right[i] = Math.max(w.right[i], w.colTo[k] - 1);
    else w.left[i] = Math.min(w.left[i], w.colFrom[k]);
  }
}

/**
 * The rows the pivots before `next` (in sweep order) updated and that are not eliminated yet,
 * brought back to what those pivots made of them: after a stretch of copies, which update
 * nothing, or after pivots taken over from another factor. Below the reference they are
 * [next, next + lo), above it [next − hi + 1, next].
 */
function restoreRest(w: Work, ch: BandChain, next: number, dir: 1 | -1): void {
  const { n, lo, hi, W } = w;
  const from = dir > 0 ? next : Math.max(0, next - hi + 1);
  const to = dir > 0 ? Math.min(n, next + lo) : next + 1;
  w.reduced.set(ch.a.subarray(from * W, to * W), from * W);
  scanEnvelopes(w, from, to);
  for (let i = from; i < to; i++) {
    if (dir > 0) rebuildRow(w, i, Math.max(0, i - lo), next, 1, next, n);
    else rebuildRow(w, i, Math.min(n - 1, i + hi), next, -1, 0, next + 1);
  }
}

/** max |x − y| ≤ SAME·max |x| over two runs of `len` entries of one array. */
function close(a: Float64Array, p: number, q: number, len: number): boolean {
  let big = 0;
  let diff = 0;
  for (let e = 0; e < len; e++) {
    big = Math.max(big, Math.abs(a[p + e]));
    diff = Math.max(diff, Math.abs(a[p + e] - a[q + e]));
  }
  return diff <= SAME * big;
}

/**
 * Whether the row that pivot k's updates reach first (the farthest from it) is, in the original
 * band, the one a period back: all the rows a pivot's state is made of then repeat.
 */
function entersRepeated(w: Work, ch: BandChain, k: number, src: number): boolean {
  const W = w.W;
  const shift = k - src;
  const entering = shift < 0 ? k - w.hi : k + w.lo;
  if (entering < 0 || entering >= w.n || entering - shift < 0 || entering - shift >= w.n) return false;
  for (let e = 0; e < W; e++) if (ch.a[entering * W + e] !== ch.a[(entering - shift) * W + e]) return false;
  return true;
}

/** Whether pivot k repeats pivot src, a level before: its rows the same, its data within SAME (cheapest tests first). */
function repeats(w: Work, ch: BandChain, k: number, src: number): boolean {
  const { W, span, lo } = w;
  const d = w.pivots;
  if (!(Math.abs(d[k] - d[src]) <= SAME * Math.abs(d[k]))) return false;
  if (w.colFrom[k] - k !== w.colFrom[src] - src || w.colTo[k] - k !== w.colTo[src] - src) return false;
  if (!entersRepeated(w, ch, k, src)) return false;
  return close(w.f, k * span, src * span, span) && close(w.reduced, k * W + w.colFrom[k] - k + lo, src * W + w.colFrom[src] - src + lo, w.colTo[k] - w.colFrom[k]);
}

function copyPivot(w: Work, k: number, src: number): void {
  const { W, span } = w;
  w.pivots[k] = w.pivots[src];
  w.colFrom[k] = w.colFrom[src] + k - src;
  w.colTo[k] = w.colTo[src] + k - src;
  w.f.copyWithin(k * span, src * span, (src + 1) * span);
  w.reduced.copyWithin(k * W, src * W, (src + 1) * W);
  w.copied++;
}

/**
 * Eliminates the pivots start, start + dir, … before stop. Copies start once `settle` pivots
 * in a row repeated the level before, and last while the original rows keep repeating and the
 * pivots' reach stays clear of the reference and of the chain's ends. With `resumed`, the
 * pivots before start were taken over from another factor and the rest's rows next to them
 * still hold their original entries; a run of repeating pivots among those counts as well.
 */
export function sweep(w: Work, ch: BandChain, start: number, stop: number, dir: 1 | -1, resumed: boolean, signal?: AbortSignal): void {
  const period = ch.period;
  // A pivot's data depend on the original rows in its reach and on the pivots of the last
  // `lo` (below the reference; `hi` above it): once all of those repeated, so would it.
  const settle = (dir > 0 ? w.lo : w.hi) + period;
  // Copies start `settle` pivots into a stretch and end a band before its far end: on a chain
  // with fewer states the look for them would only cost (a rule of the chain alone, so that a
  // factor taken over was built under it too).
  const looks = w.n > 2 * settle + w.lo + w.hi;
  const inside = (k: number): boolean => (dir > 0 ? k < stop : k > stop);
  // Above the reference the copies must stay clear of the rows the sweep below it changed.
  const clear = (k: number): boolean => (dir > 0 ? k + w.span < w.n : k - w.lo - w.hi > w.ref);
  const repeating = (k: number): boolean => {
    const src = k - dir * period;
    return src >= 0 && src < w.n && clear(k) && repeats(w, ch, k, src);
  };
  let run = 0;
  if (resumed) {
    for (let k = start - dir; looks && run < settle && k >= 0 && k < w.n && repeating(k); k -= dir) run++;
    if (run < settle || !inside(start)) restoreRest(w, ch, start, dir);
  }
  for (let k = start, steps = 0; inside(k); steps++) {
    if ((steps & 255) === 0) throwIfAborted(signal);
    if (run >= settle) {
      while (inside(k) && clear(k) && entersRepeated(w, ch, k, k - dir * period)) {
        copyPivot(w, k, k - dir * period);
        k += dir;
      }
      restoreRest(w, ch, k, dir);
      run = 0;
      continue;
    }
    eliminate(w, k, dir);
    run = looks && repeating(k) ? run + 1 : 0;
    k += dir;
  }
}
