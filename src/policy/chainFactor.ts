import type { BandChain } from './band.js';
import { startFactor, sweep, type ChainFactor } from './chainSweep.js';

export { UnreachableReference, type ChainFactor } from './chainSweep.js';

/**
 * The state elimination of a banded chain (the Grassmann–Taksar–Heyman scheme, see chain.ts):
 * states 0, 1, …, ref−1 upwards, then n−1, …, ref+1 downwards (the sweeps of chainSweep.ts).
 *
 * A factor of a chain of the same length whose rows from `top` on agree with this one's hands
 * over the pivots, from the top down, whose updates touch only those rows (`Reuse`): the rows
 * they shared with the unreduced rest are rebuilt from their original values and the stored
 * multipliers, in the original order of updates (chainSweep.ts `restoreRest`, as after a
 * stretch of copied pivots). Skipping an update that a zero multiplier would make, or adding a
 * zero, leaves every sum as it was, so the factor is the one a plain elimination computes, bit
 * for bit.
 */

/** A factor to take pivots from: rows [top, n) are the same as this chain's. */
export interface Reuse {
  readonly from: ChainFactor;
  readonly top: number;
}

/**
 * The first pivot from which `reuse` gives the rest, [above, n): those whose updates touch only
 * shared rows and never meet the rows the pivots below the reference touch, in both
 * eliminations (so that the order between the two cannot matter), and that both sweeps were
 * free to copy (chainSweep.ts `clear`); n if none.
 */
function reusableFrom(ch: BandChain, ref: number, reuse: Reuse | undefined): number {
  const from = reuse?.from;
  if (!reuse || !from || from.consumed || from.n !== ch.n || from.lo !== ch.lo || from.hi !== ch.hi) return ch.n;
  const { lo, hi } = ch;
  return Math.min(ch.n, Math.max(reuse.top + hi, Math.max(from.ref, ref) + lo + hi + 1));
}

/** Eliminates every state but `ref`, taking over what `reuse` offers (its arrays, in place). */
export function factorize(ch: BandChain, ref: number, reuse?: Reuse, signal?: AbortSignal): ChainFactor {
  const { n, lo, hi, width: W } = ch;
  const span = Math.max(lo, hi);
  const above = reusableFrom(ch, ref, reuse);
  const from = above < n ? reuse?.from : undefined;
  const memory = ch.memory;
  // The factor living in this memory is overwritten now (unless it is the one taken over).
  if (memory.tenant && memory.tenant !== from) memory.tenant.consumed = true;
  const { reduced, pivots, f, colFrom, colTo, left, right } = memory;
  // Until a first factorisation the memory is as new (zero); after one, its arrays start as new ones would.
  const used = memory.dirty;
  memory.dirty = true;
  if (used) {
    left.fill(0);
    right.fill(0);
  }
  if (from) {
    // Rows above `above` keep their reduced form; the rest restart from this chain's values.
    if (from.memory !== memory) {
      // Another chain's factor (of the same shape): its arrays are copied over.
      reduced.set(from.reduced);
      pivots.set(from.pivots);
      f.set(from.f);
      colFrom.set(from.colFrom);
      colTo.set(from.colTo);
    }
    from.consumed = true;
    reduced.set(ch.a.subarray(0, above * W));
    f.fill(0, 0, above * span);
  } else {
    // Everything as a fresh factor's: the band, and zeros.
    reduced.set(ch.a);
    if (used) {
      pivots.fill(0);
      f.fill(0);
      colFrom.fill(0);
      colTo.fill(0);
    }
  }
  startFactor(ch, ref, above);
  sweep(ch, 0, ref, 1, false, signal);
  sweep(ch, above - 1, ref, -1, above < n, signal);
  const factor: ChainFactor = { n, lo, hi, ref, span, memory, reduced, pivots, f, colFrom, colTo, copied: memory.kernels.copiedPivots(), consumed: false };
  memory.tenant = factor;
  return factor;
}
