import { throwIfAborted } from '../model/errors.js';
import { fixedMemory, kernelsOn, type Kernels } from '../wasm/kernels.js';
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
  /** The wasm memory the arrays above are views into, with the kernels on it. */
  readonly memory: FactorMemory;
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

/**
 * The arrays of one factorisation, as views into a wasm memory of their own, with the
 * elimination kernels (wasm/kernels.ts) instantiated on it. The memory never grows, so the
 * views stay valid for the factor's life; a factorisation that takes over a factor takes over
 * its memory. Byte addresses of the arrays are kept for the kernels.
 */
export class FactorMemory {
  readonly reduced: Float64Array;
  readonly f: Float64Array;
  readonly pivots: Float64Array;
  readonly colFrom: Int32Array;
  readonly colTo: Int32Array;
  /** The rows' envelopes during a factorisation (Work.left, Work.right). */
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly kernels: Kernels;
  readonly at: { readonly reduced: number; readonly f: number; readonly pivots: number; readonly colFrom: number; readonly colTo: number; readonly left: number; readonly right: number };

  constructor(n: number, W: number, span: number) {
    const f64 = [n * W, n * span, n];
    const bytes = 8 * (f64[0] + f64[1] + f64[2]) + 4 * 4 * n;
    const memory = fixedMemory(bytes);
    const buf = memory.buffer;
    let next = 0;
    const take = (len: number, size: number): number => {
      const at = next;
      next += len * size;
      return at;
    };
    const at = {
      reduced: take(f64[0], 8),
      f: take(f64[1], 8),
      pivots: take(f64[2], 8),
      colFrom: take(n, 4),
      colTo: take(n, 4),
      left: take(n, 4),
      right: take(n, 4),
    };
    this.at = at;
    this.reduced = new Float64Array(buf, at.reduced, f64[0]);
    this.f = new Float64Array(buf, at.f, f64[1]);
    this.pivots = new Float64Array(buf, at.pivots, f64[2]);
    this.colFrom = new Int32Array(buf, at.colFrom, n);
    this.colTo = new Int32Array(buf, at.colTo, n);
    this.left = new Int32Array(buf, at.left, n);
    this.right = new Int32Array(buf, at.right, n);
    this.kernels = kernelsOn(memory);
  }
}

/** reduced[dst + e] += m·reduced[src + e] for e < len (wasm/kernels.ts axpy). */
function axpy(w: Work, dst: number, src: number, m: number, len: number): void {
  w.memory.kernels.axpy(w.memory.at.reduced, dst, src, m, len);
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

/**
 * Eliminates pivot k (wasm/kernels.ts eliminate): its pivot d(k) is the sum of its row over
 * the columns still to be eliminated on the reference's side (within its envelope), and each
 * row i it reaches gets f(i, k) = a(i, k)/d(k) times its row over those columns, its envelope
 * widened to them.
 */
function eliminate(w: Work, k: number, dir: 1 | -1): void {
  const { memory: mem, n, lo, hi, ref, W, span } = w;
  const at = mem.at;
  const ok = mem.kernels.eliminate(at.reduced, at.f, at.pivots, at.colFrom, at.colTo, at.left, at.right, n, lo, hi, ref, W, span, k, dir);
  // Nothing on the side of the reference is reachable from k: the chain stays on the other
  // side from there on, so k is recurrent and the reference transient; k is the one to use.
  if (!ok) throw new UnreachableReference(k);
}

/**
 * Row i of the rest as the pivots first, first + dir, … (not reaching stop) left it: its
 * original entries plus each one's update in that order, over the columns [c0, c1) still to be
 * eliminated (the others were read off already). The row must hold its original entries.
 */
function rebuildRow(w: Work, i: number, first: number, stop: number, dir: 1 | -1, c0: number, c1: number): void {
  const { W, lo, f, span } = w;
  const ri = i * W - i + lo;
  for (let k = first; dir > 0 ? k < stop : k > stop; k += dir) {
    const m = f[k * span - 1 + dir * (i - k)];
    if (m === 0) continue;
    const from = Math.max(c0, w.colFrom[k]);
    const to = Math.min(c1, w.colTo[k]);
    if (to > from) axpy(w, ri + from, k * W - k + lo + from, m, to - from);
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
