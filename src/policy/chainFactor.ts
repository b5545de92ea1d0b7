import type { BandChain } from './band.js';
import { scanEnvelopes, sweep, type ChainFactor, type Work } from './chainSweep.js';

export { UnreachableReference, type ChainFactor } from './chainSweep.js';

/**
 * The state elimination of a banded chain (the Grassmann–Taksar–Heyman scheme, see chain.ts):
 * states 0, 1, …, ref−1 upwards, then n−1, …, ref+1 downwards (the sweeps of chainSweep.ts).
 *
 * A factor of a chain whose rows partly agree with this one's hands over the pivots that touch
 * only those rows (`Reuse`): the rows they shared with the unreduced rest are rebuilt from
 * their original values and the stored multipliers, in the original order of updates
 * (chainSweep.ts `restoreRest`, as after a stretch of copied pivots). Skipping
 * an update that a zero multiplier would make, or adding a zero, leaves every sum as it was,
 * so the factor is the one a plain elimination computes, bit for bit.
 */

/** A factor to take pivots from: rows [0, bottom) and [top, n) are the same as this chain's. */
export interface Reuse {
  readonly from: ChainFactor;
  readonly bottom: number;
  readonly top: number;
}

/**
 * How many pivots at each end `reuse` can give: [0, below) upwards and [above, n) downwards,
 * those whose updates touch only shared rows and never meet the other end's (so that the
 * order between them cannot matter), in both eliminations.
 */
function reusable(ch: BandChain, ref: number, reuse: Reuse | undefined): { below: number; above: number } {
  const none = { below: 0, above: ch.n };
  const from = reuse?.from;
  if (!reuse || !from || from.consumed || from.lo !== ch.lo || from.hi !== ch.hi) return none;
  const { lo, hi } = ch;
  const below = Math.max(0, Math.min(reuse.bottom - lo, from.ref, ref, Math.min(ch.n, from.n) - Math.max(lo, hi)));
  const above = from.n === ch.n ? Math.min(ch.n, Math.max(reuse.top + hi, from.ref + lo + hi, ref + lo + hi)) : ch.n;
  return { below, above: Math.max(above, below + 1) };
}

/** Eliminates every state but `ref`, taking over what `reuse` offers. */
export function factorize(ch: BandChain, ref: number, reuse?: Reuse): ChainFactor {
  const { n, lo, hi, width: W } = ch;
  const span = Math.max(lo, hi);
  const { below, above } = reusable(ch, ref, reuse);
  const from = reuse?.from;
  const adopt = from !== undefined && above < n; // same n: take the arrays over in place
  const fresh = (): Work => ({
    n, lo, hi, ref, W, span, copied: 0, consumed: false,
    reduced: ch.a.slice(), pivots: new Float64Array(n), f: new Float64Array(n * span),
    colFrom: new Int32Array(n), colTo: new Int32Array(n), left: new Int32Array(n), right: new Int32Array(n),
  });
  const w: Work = adopt ? { ...from, ref, W, copied: 0, left: new Int32Array(n), right: new Int32Array(n) } : fresh();
  if (from && (adopt || below > 0)) from.consumed = true;
  if (adopt) {
    // Rows above `above` keep their reduced form; the rest restart from this chain's values.
    w.reduced.set(ch.a.subarray(below * W, above * W), below * W);
    w.f.fill(0, below * span, above * span);
  } else if (from && below > 0) {
    w.reduced.set(from.reduced.subarray(0, below * W));
    w.f.set(from.f.subarray(0, below * span));
    w.pivots.set(from.pivots.subarray(0, below));
    w.colFrom.set(from.colFrom.subarray(0, below));
    w.colTo.set(from.colTo.subarray(0, below));
  }
  scanEnvelopes(w, below, above);
  sweep(w, ch, below, ref, 1, below > 0);
  sweep(w, ch, above - 1, ref, -1, above < n);
  const { left: _l, right: _r, W: _w, ...factor } = w;
  return factor;
}
