import { throwIfAborted } from '../model/errors.js';
import type { BandChain } from './band.js';
import type { ChainMemory } from './chainMemory.js';

/**
 * The elimination sweeps of a banded chain's reduction (chainFactor.ts puts them together); the
 * loops are wasm/sweep.ts's, on the chain's memory (chainMemory.ts).
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
  /** The chain's memory, which the arrays above are views into (chainMemory.ts). */
  readonly memory: ChainMemory;
  /** Pivots copied from the level before (level-homogeneous stretches) rather than eliminated. */
  readonly copied: number;
  /** Set when a later factorisation took over the arrays. */
  consumed: boolean;
}

/** Raised when the chosen reference cannot be reached from a state that is recurrent. */
export class UnreachableReference extends Error {
  constructor(readonly state: number) {
    super(`state ${state} cannot reach the reference`);
  }
}

/** Steps of a sweep between two looks at the abort signal. */
const STEPS_PER_CHECK = 256;

/**
 * Names the arrays of the chain memory and the shape for the sweeps that follow (the kernels
 * of wasm/sweep.ts: envelopes, eliminations, copies, rebuilt rows), and scans the envelopes of
 * rows [0, upTo).
 */
export function startFactor(ch: BandChain, ref: number, upTo: number): void {
  const { kernels: k, at } = ch.memory;
  k.factorSetup(at.a, at.reduced, at.f, at.pivots, at.colFrom, at.colTo, at.left, at.right, ch.n, ch.lo, ch.hi, ref, ch.width, Math.max(ch.lo, ch.hi), ch.period);
  k.scanEnvelopes(0, upTo);
}

/**
 * Eliminates the pivots start, start + dir, … before stop (wasm/sweep.ts sweepBegin,
 * sweepRun). Copies start once `settle` pivots in a row repeated the level before, and last
 * while the original rows keep repeating and the pivots' reach stays clear of the reference and
 * of the chain's ends. With `resumed`, the pivots before start were taken over from another
 * factor and the rest's rows next to them still hold their original entries; a run of
 * repeating pivots among those counts as well.
 */
export function sweep(ch: BandChain, start: number, stop: number, dir: 1 | -1, resumed: boolean, signal?: AbortSignal): void {
  const k = ch.memory.kernels;
  k.sweepBegin(start, stop, dir, resumed ? 1 : 0);
  for (;;) {
    throwIfAborted(signal);
    const status = k.sweepRun(STEPS_PER_CHECK);
    if (status === 0) return;
    // Nothing on the side of the reference is reachable from this pivot: the chain stays on
    // the other side from there on, so it is recurrent and the reference transient.
    if (status === 2) throw new UnreachableReference(k.failedPivot());
  }
}
