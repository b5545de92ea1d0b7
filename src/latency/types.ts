/**
 * The result shape every response-time method returns (Euler inversion in distribution.ts, exact
 * uniformization for exponential service in uniformized.ts). Kept apart so that the methods and
 * the dispatch that picks one import it without importing each other.
 */
export interface LatencyPercentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly p999: number;
}

export interface LatencyAccuracy {
  /** Bound on |computed − true| of P(R ≤ t) at the points evaluated (per method: see its docs), including the lost mass. */
  readonly cdf: number;
  /** That bound over the density at each percentile, relative to it: the largest over the five. */
  readonly percentileRelative: number;
  /** Mass of the paths (or entry states) dropped (included in `cdf`). */
  readonly lostMass: number;
}

export interface ResponseTimeDistribution {
  /** Times, seconds. */
  readonly grid: Float64Array;
  /** P(R ≤ grid[i]). */
  readonly cdf: Float64Array;
  readonly percentiles: LatencyPercentiles;
  /** E[R], seconds. */
  readonly mean: number;
  readonly accuracy: LatencyAccuracy;
  /** Transform evaluations spent (0 for a method without transforms). */
  readonly transforms: number;
  /** Uniformization steps taken (uniformized.ts only). */
  readonly steps?: number;
}

/** The five percentile levels, in the order of `LatencyPercentiles`. */
export const PERCENTILE_KEYS: readonly (keyof LatencyPercentiles)[] = ['p50', 'p90', 'p95', 'p99', 'p999'];
export const PERCENTILE_PROBS: readonly number[] = [0.5, 0.9, 0.95, 0.99, 0.999];
