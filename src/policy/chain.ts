import { throwIfAborted } from '../model/errors.js';

/**
 * A Markov (or, with the tail extrapolation, pseudo-Markov) chain with a banded transition
 * matrix, plus one reward and one sojourn per state, and its exact reduction by state
 * elimination (the Grassmann–Taksar–Heyman scheme).
 *
 * One pass of O(n·lo·hi) gives the average reward g = Σν·c / Σν·y, the relative values h
 * and the stationary distribution ν. Pivots are sums of off-diagonal mass, never
 * 1 − p(k,k), so for a stochastic matrix the stationary distribution involves no
 * subtraction at all.
 *
 * Relative values need care: eliminating a state folds the rewards of the excursions
 * through it into its neighbours, and g·Y is later subtracted from that sum. If the final
 * (reference) state is rare, those excursions are long and the subtraction loses every
 * digit. So the states are eliminated from both ends towards a reference `ref` that
 * should be a likely state (the mode of ν): 0, 1, …, ref−1 upwards, then n−1, …, ref+1
 * downwards. Excursions then stay short and h keeps its precision.
 */
export class BandChain {
  /** Entry (i, j) lives at a[i·width + (j − i + lo)]. */
  readonly a: Float64Array;
  readonly reward: Float64Array;
  readonly time: Float64Array;
  readonly width: number;

  constructor(
    readonly n: number,
    /** Largest downward jump. */
    readonly lo: number,
    /** Largest upward jump. */
    readonly hi: number,
  ) {
    this.width = lo + hi + 1;
    this.a = new Float64Array(n * this.width);
    this.reward = new Float64Array(n);
    this.time = new Float64Array(n);
  }

  index(i: number, j: number): number {
    return i * this.width + (j - i + this.lo);
  }

  add(i: number, j: number, v: number): void {
    this.a[this.index(i, j)] += v;
  }
}

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
  /** Checked every 256 eliminated states: a reduction of a large chain takes seconds. */
  readonly signal?: AbortSignal;
}

/** Raised internally when the chosen reference cannot be reached from a state that is recurrent. */
class UnreachableReference extends Error {
  constructor(readonly state: number) {
    super(`state ${state} cannot reach the reference`);
  }
}

/**
 * Solves the chain. The matrix is reduced in a copy; `ch` is left as it was so that a
 * retry with another reference is possible.
 */
export function solveChain(ch: BandChain, opts: SolveChainOptions = {}): ChainSolution {
  let ref = Math.min(Math.max(opts.ref ?? 0, 0), ch.n - 1);
  for (;;) {
    try {
      const sol = reduce(ch, ref, opts.signal);
      for (let round = 0; round < (opts.refine ?? 0); round++) refineOnce(ch, sol);
      const { gain, values, stationary, mode } = sol;
      return { gain, values, stationary, ref, mode };
    } catch (e) {
      // A recurrent state that never reaches ref: ref is transient, use that state instead.
      if (e instanceof UnreachableReference && e.state !== ref) {
        ref = e.state;
        continue;
      }
      throw e;
    }
  }
}

/** A solution plus the reduction it came from, kept for refinement. */
interface Reduction {
  gain: number;
  readonly values: Float64Array;
  readonly stationary: Float64Array;
  readonly ref: number;
  readonly mode: number;
  readonly reduced: Float64Array;
  readonly pivots: Float64Array;
  readonly multipliers: Multipliers;
  /** The sojourn vector after the reduction (the same for every right-hand side). */
  readonly reducedTime: Float64Array;
}

/**
 * The elimination's multipliers f(i, k) = a(i, k)/d(k), stored contiguously per eliminated state
 * k (`span` rows each: k+1.. upwards in phase 1, k−1.. downwards in phase 2). The right-hand
 * sides and the stationary law replay them; read from the band instead they would be a column
 * walk, one cache line per entry, and cost as much as the elimination on wide bands.
 */
interface Multipliers {
  readonly f: Float64Array;
  readonly span: number;
}

function reduce(ch: BandChain, ref: number, signal: AbortSignal | undefined): Reduction {
  const { n, lo, hi, width: W } = ch;
  const a = ch.a.slice();
  const d = new Float64Array(n);
  const span = Math.max(lo, hi);
  const f = new Float64Array(n * span);
  const row = (i: number): number => i * W - i + lo; // a[row(i) + j] = entry (i, j)

  // Phase 1: eliminate 0..ref−1 upwards (the remaining states are all above k).
  for (let k = 0; k < ref; k++) {
    if ((k & 255) === 0) throwIfAborted(signal);
    const rk = row(k);
    const jhi = Math.min(n - 1, k + hi);
    let dk = 0;
    for (let j = k + 1; j <= jhi; j++) dk += a[rk + j];
    // Nothing above k is reachable from k: the chain lives below k from there on, so k is
    // recurrent and the states above it transient; k is the reference to use.
    if (!(Math.abs(dk) > 0)) throw new UnreachableReference(k);
    d[k] = dk;
    const ihi = Math.min(n - 1, k + lo);
    const fk = k * span - k - 1; // f[fk + i] = f(i, k)
    for (let i = k + 1; i <= ihi; i++) {
      const ri = row(i);
      const aik = a[ri + k];
      if (aik === 0) continue;
      const m = aik / dk;
      f[fk + i] = m;
      for (let j = k + 1; j <= jhi; j++) a[ri + j] += m * a[rk + j];
    }
  }
  // Phase 2: eliminate n−1..ref+1 downwards (the remaining states are in [ref, k)).
  for (let k = n - 1; k > ref; k--) {
    if ((k & 255) === 0) throwIfAborted(signal);
    const rk = row(k);
    const jlo = Math.max(ref, k - lo);
    let dk = 0;
    for (let j = jlo; j < k; j++) dk += a[rk + j];
    if (!(Math.abs(dk) > 0)) throw new UnreachableReference(k);
    d[k] = dk;
    const ilo = Math.max(ref, k - hi);
    const fk = k * span + k - 1; // f[fk − i] = f(i, k)
    for (let i = ilo; i < k; i++) {
      const ri = row(i);
      const aik = a[ri + k];
      if (aik === 0) continue;
      const m = aik / dk;
      f[fk - i] = m;
      for (let j = jlo; j < k; j++) a[ri + j] += m * a[rk + j];
    }
  }
  const multipliers = { f, span };
  // The right-hand sides follow the matrix through the stored multipliers (refinement reuses them).
  const reward = forwardSubstitute(multipliers, ch, ref, ch.reward.slice());
  const time = forwardSubstitute(multipliers, ch, ref, ch.time.slice());
  const gain = reward[ref] / time[ref];
  const values = backSubstitute(a, d, ch, ref, reward, time, gain);

  // Stationary distribution: ν(k) = Σ_i ν(i)·a(i, k)/d(k) over the states i left when k went.
  const nu = new Float64Array(n);
  nu[ref] = 1;
  for (let k = ref + 1; k < n; k++) {
    const fk = k * span + k - 1;
    let p = 0;
    for (let i = Math.max(ref, k - hi); i < k; i++) p += nu[i] * f[fk - i];
    nu[k] = p;
  }
  for (let k = ref - 1; k >= 0; k--) {
    const fk = k * span - k - 1;
    let p = 0;
    const ihi = Math.min(n - 1, k + lo);
    for (let i = k + 1; i <= ihi; i++) p += nu[i] * f[fk + i];
    nu[k] = p;
  }
  let total = 0;
  let mode = ref;
  for (let k = 0; k < n; k++) {
    total += nu[k];
    if (nu[k] > nu[mode]) mode = k;
  }
  for (let k = 0; k < n; k++) nu[k] /= total;
  return { gain, values, stationary: nu, ref, mode, reduced: a, pivots: d, multipliers, reducedTime: time };
}

/**
 * Applies the elimination's updates to a right-hand side in place: each eliminated state k
 * passes f(i, k) of its entry to the rows i it connected to.
 */
function forwardSubstitute(mult: Multipliers, ch: BandChain, ref: number, v: Float64Array): Float64Array {
  const { n, lo, hi } = ch;
  const { f, span } = mult;
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
function backSubstitute(
  a: Float64Array,
  d: Float64Array,
  ch: BandChain,
  ref: number,
  reward: Float64Array,
  time: Float64Array,
  gain: number,
): Float64Array {
  const { n, lo, hi, width: W } = ch;
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
function refineOnce(ch: BandChain, sol: Reduction): void {
  const { n, lo, hi, width: W, a } = ch;
  const { values: h, gain: g, ref, reduced, pivots, multipliers, reducedTime } = sol;
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
  forwardSubstitute(multipliers, ch, ref, r);
  const dg = r[ref] / reducedTime[ref];
  const dh = backSubstitute(reduced, pivots, ch, ref, r, reducedTime, dg);
  for (let s = 0; s < n; s++) h[s] += dh[s];
  sol.gain = g + dg;
}
