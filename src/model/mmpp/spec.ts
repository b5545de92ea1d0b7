/**
 * The JSON form of `Scenario.arrivalProcess` (proto message `ArrivalProcess`): exactly one of
 * the three kinds. Units: requests/s, seconds.
 */
export interface MmppSpec {
  /** λ_j per phase (1..8 phases). */
  rates: number[];
  /** Q: M×M row-major, flat (proto form) or as M rows. Rows sum to 0, off-diagonals ≥ 0, irreducible. */
  generator: number[] | number[][];
}

export interface BurstSpec {
  meanRate: number;
  /** λ_burst / λ̄, from 1 up to 1 + meanGapSeconds/meanBurstSeconds. */
  peakToMean: number;
  meanBurstSeconds: number;
  meanGapSeconds: number;
}

export interface TraceSpec {
  /** Arrival times in seconds, non-decreasing (at least 1,000). */
  timestamps: number[];
}

export interface ArrivalProcessSpec {
  mmpp?: MmppSpec;
  burst?: BurstSpec;
  trace?: TraceSpec;
}
