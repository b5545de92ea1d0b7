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
      const sol = { ...valuesOf(ch, factor), stationary, ref, mode, factor };
      for (let round = 0; round < (opts.refine ?? 0); round++) refineOnce(ch, sol);
      return sol;
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

/** g and h from the factor, plus the sojourn vector after the reduction (the same for every right-hand side). */
function valuesOf(ch: BandChain, factor: ChainFactor): { gain: number; values: Float64Array; reducedTime: Float64Array } {
  const reward = forwardSubstitute(factor, ch.reward.slice());
  const reducedTime = forwardSubstitute(factor, ch.time.slice());
  const gain = reward[factor.ref] / reducedTime[factor.ref];
  return { gain, values: backSubstitute(factor, reward, reducedTime, gain), reducedTime };
}

/** Past this, the unnormalised ν is scaled down (a reference far out in a fast-decaying tail). */
const RESCALE_ABOVE = 1e200;

/** ν(k) = Σ_i ν(i)·a(i, k)/d(k) over the states i left when k went, normalised; and its argmax. */
function stationaryOf(factor: ChainFactor): { stationary: Float64Array; mode: number } {
  const { n, lo, hi, ref, f, span } = factor;
  const nu = new Float64Array(n);
  nu[ref] = 1;
  const rescale = (): void => {
    for (let x = 0; x < n; x++) nu[x] /= RESCALE_ABOVE;
  };
  for (let k = ref + 1; k < n; k++) {
    const fk = k * span + k - 1;
    let p = 0;
    for (let i = Math.max(ref, k - hi); i < k; i++) p += nu[i] * f[fk - i];
    nu[k] = p;
    if (p > RESCALE_ABOVE) rescale();
  }
  for (let k = ref - 1; k >= 0; k--) {
    const fk = k * span - k - 1;
    let p = 0;
    const ihi = Math.min(n - 1, k + lo);
    for (let i = k + 1; i <= ihi; i++) p += nu[i] * f[fk + i];
    nu[k] = p;
    if (p > RESCALE_ABOVE) rescale();
  }
  let total = 0;
  let mode = ref;
  for (let k = 0; k < n; k++) {
    total += nu[k];
    if (nu[k] > nu[mode]) mode = k;
  }
  for (let k = 0; k < n; k++) nu[k] /= total;
  return { stationary: nu, mode };
}

/**
 * Applies the elimination's updates to a right-hand side in place: each eliminated state k
 * passes f(i, k) of its entry to the rows i it connected to.
 */
function forwardSubstitute(factor: ChainFactor, v: Float64Array): Float64Array {
  const { n, lo, hi, ref, f, span } = factor;
  for (let k = 0; k < ref; k++) {
    const vk = v[k];
    if (vk === 0) continue;
    const fk = k * span - k - 1;
    const ihi = Math.min(n - 1, k + lo);
    for (let i = k + 1; i <= ihi; i++) v[i] += f[fk + i] * vk;
  }
  for (let k = n - 1; k > ref; k--) {
    const vk = v[k];
    if (vk === 0) continue;
    const fk = k * span + k - 1;
    for (let i = Math.max(ref, k - hi); i < k; i++) v[i] += f[fk - i] * vk;
  }
  return v;
}

/** h from the reduced system, in reverse elimination order (h(ref) = 0). */
function backSubstitute(factor: ChainFactor, reward: Float64Array, time: Float64Array, gain: number): Float64Array {
  const { n, lo, hi, ref, reduced: a, pivots: d } = factor;
  const W = lo + hi + 1;
  const values = new Float64Array(n);
  for (let k = ref + 1; k < n; k++) {
    const rk = k * W - k + lo;
    let acc = reward[k] - gain * time[k];
    for (let j = Math.max(ref, k - lo); j < k; j++) acc += a[rk + j] * values[j];
    values[k] = acc / d[k];
  }
  for (let k = ref - 1; k >= 0; k--) {
    const rk = k * W - k + lo;
    let acc = reward[k] - gain * time[k];
    const jhi = Math.min(n - 1, k + hi);
    for (let j = k + 1; j <= jhi; j++) acc += a[rk + j] * values[j];
    values[k] = acc / d[k];
  }
  return values;
}

/**
 * One round of iterative refinement: with r(s) = c(s) − g·y(s) + Σ_j p(s,j)·(h(j) − h(s)),
 * the correction (δg, δh) solves the same equations with reward r, so it is replayed through
 * the stored reduction (the multipliers are the reduced matrix's eliminated columns).
 */
function refineOnce(ch: BandChain, sol: { gain: number; readonly values: Float64Array; readonly reducedTime: Float64Array; readonly factor: ChainFactor }): void {
  const { n, lo, hi, width: W, a } = ch;
  const { values: h, gain: g, factor, reducedTime } = sol;
  const r = new Float64Array(n);
  for (let s = 0; s < n; s++) {
    const rs = s * W - s + lo;
    const hs = h[s];
    let acc = 0;
    const jlo = Math.max(0, s - lo);
    const jhi = Math.min(n - 1, s + hi);
    for (let j = jlo; j <= jhi; j++) {
      const p = a[rs + j];
      if (p !== 0) acc += p * (h[j] - hs);
    }
    r[s] = ch.reward[s] - g * ch.time[s] + acc;
  }
  forwardSubstitute(factor, r);
  const dg = r[factor.ref] / reducedTime[factor.ref];
  const dh = backSubstitute(factor, r, reducedTime, dg);
  for (let s = 0; s < n; s++) h[s] += dh[s];
  sol.gain = g + dg;
}
