/**
 * A Markov-modulated Poisson process (docs/model.md §7): a continuous-time Markov chain with generator
 * Q on M phases, and Poisson arrivals at rate λ_j while in phase j. D0 = Q − diag(λ),
 * D1 = diag(λ); the mean rate is λ̄ = π·λ with π the stationary vector of Q.
 *
 * Plain data only (typed arrays and numbers) so that a validated scenario can cross a worker
 * boundary by structured clone.
 */
import type { TraceFitReport } from '../../fit/fitTrace.js';

export type ArrivalSource = 'mmpp' | 'burst' | 'trace';

export interface MmppProcess {
  /** Number of phases M (1 = Poisson). */
  readonly phases: number;
  /** λ_j, requests/s. */
  readonly rates: Float64Array;
  /** Q, row-major M×M; every row sums to exactly 0 (the diagonal is −Σ of the row's off-diagonals). */
  readonly generator: Float64Array;
  /** π, the stationary vector of Q. */
  readonly stationary: Float64Array;
  /** λ̄ = π·λ. */
  readonly meanRate: number;
  /** How the user gave it. */
  readonly source: ArrivalSource;
  /** For a trace: how the fitted process reproduces it. */
  readonly fit?: TraceFitReport;
}

/**
 * Stationary vector of an irreducible generator by the GTH (Grassmann–Taksar–Heyman) scheme:
 * only sums of non-negative off-diagonal rates are formed, never a subtraction, so π keeps
 * full relative precision even for rates that differ by many orders of magnitude.
 * Returns undefined when some phase cannot be reached from the others (Q reducible).
 */
export function stationaryVector(generator: ArrayLike<number>, M: number): Float64Array | undefined {
  const a = Float64Array.from(generator);
  const d = new Float64Array(M);
  for (let k = M - 1; k >= 1; k--) {
    let s = 0;
    for (let j = 0; j < k; j++) s += a[k * M + j];
    if (!(s > 0)) return undefined;
    d[k] = s;
    for (let i = 0; i < k; i++) {
      const f = a[i * M + k] / s;
      if (f === 0) continue;
      for (let j = 0; j < k; j++) if (j !== i) a[i * M + j] += f * a[k * M + j];
    }
  }
  const pi = new Float64Array(M);
  pi[0] = 1;
  for (let k = 1; k < M; k++) {
    let acc = 0;
    for (let i = 0; i < k; i++) acc += pi[i] * a[i * M + k];
    pi[k] = acc / d[k];
  }
  let total = 0;
  for (let k = 0; k < M; k++) total += pi[k];
  for (let k = 0; k < M; k++) pi[k] /= total;
  for (let k = 0; k < M; k++) if (!(pi[k] > 0)) return undefined;
  return pi;
}

/**
 * The first phase that cannot reach phase 0 or be reached from it through positive
 * off-diagonal rates (−1 when Q is irreducible). Irreducibility is what makes π unique and
 * the queue's long-run cost independent of the starting phase.
 */
export function unreachablePhase(generator: ArrayLike<number>, M: number): number {
  const reach = (forward: boolean): Uint8Array => {
    const seen = new Uint8Array(M);
    const stack = [0];
    seen[0] = 1;
    while (stack.length > 0) {
      const i = stack.pop()!;
      for (let j = 0; j < M; j++) {
        const rate = forward ? generator[i * M + j] : generator[j * M + i];
        if (j !== i && rate > 0 && !seen[j]) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    return seen;
  };
  const from = reach(true);
  const to = reach(false);
  for (let j = 0; j < M; j++) if (!from[j] || !to[j]) return j;
  return -1;
}

/**
 * Builds the process from rates and a generator whose off-diagonals are already checked
 * (non-negative, irreducible). The diagonal is recomputed as −Σ off-diagonals so that rows
 * sum to 0 exactly, whatever rounding the user's numbers carried.
 */
export function makeMmpp(
  rates: ArrayLike<number>,
  generator: ArrayLike<number>,
  source: ArrivalSource,
  fit?: TraceFitReport,
): MmppProcess {
  const M = rates.length;
  const q = Float64Array.from(generator);
  for (let i = 0; i < M; i++) {
    let off = 0;
    for (let j = 0; j < M; j++) if (j !== i) off += q[i * M + j];
    q[i * M + i] = -off;
  }
  const stationary = M === 1 ? Float64Array.of(1) : stationaryVector(q, M);
  if (!stationary) throw new Error('makeMmpp: the generator is reducible');
  const lam = Float64Array.from(rates);
  let meanRate = 0;
  for (let j = 0; j < M; j++) meanRate += stationary[j] * lam[j];
  return { phases: M, rates: lam, generator: q, stationary, meanRate, source, ...(fit ? { fit } : {}) };
}

/** The Poisson process of rate λ as a one-phase MMPP (docs/model.md §7: M = 1 reduces to §2). */
export function poissonAsMmpp(rate: number): MmppProcess {
  return makeMmpp([rate], [0], 'mmpp');
}

/**
 * The process with every rate scaled by `factor`, phases unchanged: what each of n servers
 * sees when arrivals are routed at random (factor 1/n), or the same traffic shape at another
 * mean rate.
 */
export function scaledMmpp(p: MmppProcess, factor: number): MmppProcess {
  return { ...p, rates: Float64Array.from(p.rates, (r) => r * factor), meanRate: p.meanRate * factor };
}

/** q_j = −Q_jj, the rate of leaving phase j. */
export function exitRate(p: MmppProcess, j: number): number {
  return -p.generator[j * p.phases + j];
}

/** The uniformization rate θ = max_j (λ_j + q_j) of the (count, phase) process. */
export function uniformizationRate(p: MmppProcess): number {
  let theta = 0;
  for (let j = 0; j < p.phases; j++) theta = Math.max(theta, p.rates[j] + exitRate(p, j));
  return theta;
}

/** The phase with the largest stationary probability (the "usual" traffic). */
export function likeliestPhase(p: MmppProcess): number {
  let best = 0;
  for (let j = 1; j < p.phases; j++) if (p.stationary[j] > p.stationary[best]) best = j;
  return best;
}
