/**
 * A Markov (or, with the tail extrapolation, pseudo-Markov) chain with a banded transition
 * matrix, plus one reward and one sojourn per state, and its exact reduction by state
 * elimination from the top (the Grassmann–Taksar–Heyman scheme).
 *
 * One pass of O(n·lo·hi) gives the average reward g = Σν·c / Σν·y, the relative values h
 * (h(bottom) = 0), and the stationary distribution ν. Pivots are sums of off-diagonal
 * mass, never 1 − p(k,k), so for a stochastic matrix nothing is ever subtracted.
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
  /** Relative values, zero at `bottom`. */
  readonly values: Float64Array;
  /** Stationary distribution (meaningful for a stochastic matrix). */
  readonly stationary: Float64Array;
  /** Lowest recurrent state: states below it are transient. */
  readonly bottom: number;
}

export interface SolveChainOptions {
  /** Skip the stationary distribution (policy iteration needs only gain and values). */
  readonly stationary?: boolean;
  readonly values?: boolean;
}

/** Solves the chain in place (the matrix is overwritten by its reduction). */
export function solveChain(ch: BandChain, opts: SolveChainOptions = {}): ChainSolution {
  const { n, lo, hi, width: W, a, reward, time } = ch;
  const d = new Float64Array(n);
  const exit = new Float64Array(n);
  let bottom = -1;
  let gain = NaN;
  for (let k = n - 1; k >= 0; k--) {
    const rowK = k * W - k + lo; // a[rowK + j] = entry (k, j)
    const jlo = Math.max(0, k - lo);
    let dk = exit[k];
    for (let j = jlo; j < k; j++) dk += a[rowK + j];
    const ilo = Math.max(0, k - hi);
    if (bottom < 0 && !(Math.abs(dk) > 0)) {
      // Nothing below k is reachable from k: k is the lowest recurrent state.
      bottom = k;
      gain = reward[k] / time[k];
      for (let i = ilo; i < k; i++) exit[i] += a[i * W - i + lo + k];
      continue;
    }
    d[k] = dk;
    for (let i = ilo; i < k; i++) {
      const rowI = i * W - i + lo;
      const aik = a[rowI + k];
      if (aik === 0) continue;
      const f = aik / dk;
      for (let j = jlo; j < k; j++) a[rowI + j] += f * a[rowK + j];
      reward[i] += f * reward[k];
      time[i] += f * time[k];
      exit[i] += f * exit[k];
    }
  }

  const values = new Float64Array(n);
  if (opts.values !== false) {
    for (let k = 0; k < n; k++) {
      if (k === bottom) continue;
      const rowK = k * W - k + lo;
      let acc = reward[k] - gain * time[k];
      for (let j = Math.max(0, k - lo); j < k; j++) acc += a[rowK + j] * values[j];
      values[k] = acc / d[k];
    }
  }

  const stationary = new Float64Array(n);
  if (opts.stationary !== false) {
    stationary[bottom] = 1;
    let total = 1;
    for (let k = bottom + 1; k < n; k++) {
      let acc = 0;
      for (let i = Math.max(bottom, k - hi); i < k; i++) acc += stationary[i] * a[i * W - i + lo + k];
      const v = acc / d[k];
      stationary[k] = v;
      total += v;
    }
    for (let k = bottom; k < n; k++) stationary[k] /= total;
  }
  return { gain, values, stationary, bottom };
}
