/**
 * What every method of the response-time distribution provides (docs/model.md §9): the CDF and
 * density of R as functions, with the mean and a bound on the CDF's error. The percentile search
 * and the grid (percentiles.ts) are written once against it.
 */
export interface ResponseTimeLaw {
  /** P(R ≤ t). */
  cdf(t: number): number;
  /** d/dt P(R ≤ t) of the continuous part (atoms excluded), for Newton steps. */
  density(t: number): number;
  /** E[R], seconds, from the same representation. */
  readonly mean: number;
  /** Bound on |computed − exact| of P(R ≤ t), for every t. */
  readonly cdfError: number;
  /** Probability mass the representation leaves out (part of `cdfError`). */
  readonly lostMass: number;
  /** How it was computed, e.g. `mixture`, `uniformization`, `transform`. */
  readonly method: string;
  /** Size of the representation (terms, steps or transforms). */
  readonly work: number;
  /** Where the CDF jumps (atoms), ascending, if it has any: a percentile on a jump is exactly there. */
  readonly atoms?: Float64Array;
}
