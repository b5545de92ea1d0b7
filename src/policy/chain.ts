import type { BandChain } from './band.js';
import { factorize, UnreachableReference, type ChainFactor, type Reuse } from './chainFactor.js';

export { BandChain } from './band.js';
export type { ChainFactor } from './chainFactor.js';

/**
 * The exact reduction of a banded chain by state elimination (chainFactor.ts): one pass of
 * at most O(n·lo·hi) (rows' envelopes, level-to-level copies: chainSweep.ts) gives the average
 * reward g = Σν·c / Σν·y, the relative values h and the stationary distribution ν. Pivots are sums of off-diagonal mass, never 1 − p(k,k), so for a
 * stochastic matrix the stationary distribution involves no subtraction at all.
 *
 * Relative values need care: eliminating a state folds the rewards of the excursions
 * through it into its neighbours, and g·Y is later subtracted from that sum. If the final
 * (reference) state is rare, those excursions are long and the subtraction loses every
 * digit. So the states are eliminated from both ends towards a reference `ref` that
 * should be a likely state (the mode of ν): 0, 1, …, ref−1 upwards, then n−1, …, ref+1
 * downwards. Excursions then stay short and h keeps its precision. The stationary
 * distribution is accurate from any reference.
 */
export interface ChainSolution {
  /** Average reward per unit time. */
  readonly gain: number;
  /** Relative values, zero at `ref`. */
  readonly values: Float64Array;
  /** Stationary distribution. */
  readonly stationary: Float64Array;
  /** The reference state actually used. */
  readonly ref: number;
  /** The most likely state (argmax of ν): the best reference for a next, similar chain. */
  readonly mode: number;
  /** The elimination, for `reuse` by the solve of a chain that shares rows with this one. */
  readonly factor: ChainFactor;
}

export interface SolveChainOptions {
  /** Reference state (eliminated last). Default 0. */
  readonly ref?: number;
  /**
   * Rounds of iterative refinement of g and h: the residual of the evaluation equations is
   * computed on the original matrix (as differences h(j) − h(s), which keep their digits)
   * and solved for a correction with the same reduction, at O(n·(lo+hi)) a round against
   * O(n·lo·hi) for the reduction. It recovers the digits that long eliminations lose in h
   * where h is large (deep queues), which otherwise keep the Odoni bounds apart. Default 0.
   */
  readonly refine?: number;
  /**
   * The factor of an earlier solve whose chain had the same length, band and rows from `top`
   * on: the pivots that touch only those rows are taken over instead of eliminated again (the
   * result is the same to the last bit). The earlier factor is used up (its arrays are taken over).
   */
  readonly reuse?: Reuse;
  /** Only ν is wanted: g and h are not computed (gain NaN, no values). */
  readonly stationaryOnly?: boolean;
  /** Checked every 256 eliminated states: a reduction of a large chain takes seconds. */
  readonly signal?: AbortSignal;
}

/** Solves the chain; `ch` is left as it was, so that a retry with another reference is possible. */
export function solveChain(ch: BandChain, opts: SolveChainOptions = {}): ChainSolution {
  let ref = Math.min(Math.max(opts.ref ?? 0, 0), ch.n - 1);
  let reuse = opts.reuse;
  for (;;) {
    try {
      const factor = factorize(ch, ref, reuse, opts.signal);
      const { stationary, mode } = stationaryOf(factor);
      if (opts.stationaryOnly) return { gain: NaN, values: new Float64Array(0), stationary, ref, mode, factor };
      const sol = { ...substituteOn(ch, factor), factor };
      for (let round = 0; round < (opts.refine ?? 0); round++) refineOnce(ch, sol);
      // The values are the memory's until copied (its next solve overwrites them).
      return { gain: sol.gain, values: sol.values.slice(), stationary, ref, mode, factor };
    } catch (e) {
      // A recurrent state that never reaches ref: ref is transient, use that state instead.
      if (e instanceof UnreachableReference && e.state !== ref) {
        ref = e.state;
        reuse = undefined;
        continue;
      }
      throw e;
    }
  }
}

/**
 * g and h from the factor: the reward and sojourn vectors through the elimination's updates
 * (forward substitution), g their ratio at the reference, h by back substitution. The vectors
 * are the chain memory's: [0] reduced reward, [1] reduced time (kept for the refinement),
 * [2] values; the values returned are a view (the memory's next solve overwrites them). Also
 * what replays another reward and time (set in `ch`) through a factor of `ch`.
 */
export function substituteOn(ch: BandChain, factor: ChainFactor): { gain: number; values: Float64Array } {
  const { kernels: k, at, vectors: v } = factor.memory;
  const { n, lo, hi, ref, span } = factor;
  v[0].set(ch.reward);
  v[1].set(ch.time);
  k.forwardSubstitute(at.f, at.vectors[0], n, lo, hi, ref, span);
  k.forwardSubstitute(at.f, at.vectors[1], n, lo, hi, ref, span);
  const gain = v[0][ref] / v[1][ref];
  k.backSubstitute(at.reduced, at.pivots, at.vectors[0], at.vectors[1], at.vectors[2], n, lo, hi, ref, ch.width, gain);
  return { gain, values: v[2] };
}

/**
 * ν(k) = Σ_i ν(i)·a(i, k)/d(k) over the states i left when k went, normalised (scaled down on
 * the way past 1e200, a reference far out in a fast-decaying tail); and its argmax.
 */
function stationaryOf(factor: ChainFactor): { stationary: Float64Array; mode: number } {
  const { kernels: k, at, vectors: v } = factor.memory;
  const mode = k.stationary(at.f, at.vectors[3], factor.n, factor.lo, factor.hi, factor.ref, factor.span);
  return { stationary: v[3].slice(), mode };
}

/**
 * One round of iterative refinement: with r(s) = c(s) − g·y(s) + Σ_j p(s,j)·(h(j) − h(s)),
 * the correction (δg, δh) solves the same equations with reward r, so it is replayed through
 * the stored reduction (the multipliers are the reduced matrix's eliminated columns). Works on
 * the chain memory's vectors: h in [2], r in [3], δh in [4].
 */
function refineOnce(ch: BandChain, sol: { gain: number; readonly factor: ChainFactor }): void {
  const { kernels: k, at, vectors: v } = sol.factor.memory;
  const { n, lo, hi, ref, span } = sol.factor;
  const g = sol.gain;
  const [, time, h, r, dh] = at.vectors;
  k.residual(at.a, at.reward, at.time, h, r, n, lo, hi, ch.width, g);
  k.forwardSubstitute(at.f, r, n, lo, hi, ref, span);
  const dg = v[3][ref] / v[1][ref];
  k.backSubstitute(at.reduced, at.pivots, r, time, dh, n, lo, hi, ref, ch.width, dg);
  k.addInto(h, dh, n);
  sol.gain = g + dg;
}
