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
      return reduce(ch, ref);
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

function reduce(ch: BandChain, ref: number): ChainSolution {
  const { n, lo, hi, width: W } = ch;
  const a = ch.a.slice();
  const reward = ch.reward.slice();
  const time = ch.time.slice();
  const d = new Float64Array(n);
  const row = (i: number): number => i * W - i + lo; // a[row(i) + j] = entry (i, j)

  // Phase 1: eliminate 0..ref−1 upwards (the remaining states are all above k).
  for (let k = 0; k < ref; k++) {
    const rk = row(k);
    const jhi = Math.min(n - 1, k + hi);
    let dk = 0;
    for (let j = k + 1; j <= jhi; j++) dk += a[rk + j];
    // Nothing above k is reachable from k: the chain lives below k from there on, so k is
    // recurrent and the states above it transient; k is the reference to use.
    if (!(Math.abs(dk) > 0)) throw new UnreachableReference(k);
    d[k] = dk;
    const ihi = Math.min(n - 1, k + lo);
    for (let i = k + 1; i <= ihi; i++) {
      const ri = row(i);
      const aik = a[ri + k];
      if (aik === 0) continue;
      const f = aik / dk;
      for (let j = k + 1; j <= jhi; j++) a[ri + j] += f * a[rk + j];
      reward[i] += f * reward[k];
      time[i] += f * time[k];
    }
  }
  // Phase 2: eliminate n−1..ref+1 downwards (the remaining states are in [ref, k)).
  for (let k = n - 1; k > ref; k--) {
    const rk = row(k);
    const jlo = Math.max(ref, k - lo);
    let dk = 0;
    for (let j = jlo; j < k; j++) dk += a[rk + j];
    if (!(Math.abs(dk) > 0)) throw new UnreachableReference(k);
    d[k] = dk;
    const ilo = Math.max(ref, k - hi);
    for (let i = ilo; i < k; i++) {
      const ri = row(i);
      const aik = a[ri + k];
      if (aik === 0) continue;
      const f = aik / dk;
      for (let j = jlo; j < k; j++) a[ri + j] += f * a[rk + j];
      reward[i] += f * reward[k];
      time[i] += f * time[k];
    }
  }
  const gain = reward[ref] / time[ref];

  // Back-substitution in reverse elimination order.
  const values = new Float64Array(n);
  const nu = new Float64Array(n);
  nu[ref] = 1;
  for (let k = ref + 1; k < n; k++) {
    const rk = row(k);
    let acc = reward[k] - gain * time[k];
    for (let j = Math.max(ref, k - lo); j < k; j++) acc += a[rk + j] * values[j];
    values[k] = acc / d[k];
    let p = 0;
    for (let i = Math.max(ref, k - hi); i < k; i++) p += nu[i] * a[row(i) + k];
    nu[k] = p / d[k];
  }
  for (let k = ref - 1; k >= 0; k--) {
    const rk = row(k);
    let acc = reward[k] - gain * time[k];
    const jhi = Math.min(n - 1, k + hi);
    for (let j = k + 1; j <= jhi; j++) acc += a[rk + j] * values[j];
    values[k] = acc / d[k];
    let p = 0;
    const ihi = Math.min(n - 1, k + lo);
    for (let i = k + 1; i <= ihi; i++) p += nu[i] * a[row(i) + k];
    nu[k] = p / d[k];
  }
  let total = 0;
  let mode = ref;
  for (let k = 0; k < n; k++) {
    total += nu[k];
    if (nu[k] > nu[mode]) mode = k;
  }
  for (let k = 0; k < n; k++) nu[k] /= total;
  return { gain, values, stationary: nu, ref, mode };
}
