/**
 * Bounds specific to Markov-modulated arrivals (docs/model.md §7). They sit beside the core LIMITS
 * and are reported by name when exceeded.
 */
export const MMPP_LIMITS = {
  /** Most phases an arrival process may have. */
  maxPhases: 8,
  /** A generator row may sum to at most this times its largest |entry| (then it is made exact). */
  rowSumTolerance: 1e-9,
  /** arrivalRate, when given beside an arrival process, must equal λ̄ to this relative accuracy. */
  meanRateTolerance: 1e-6,
  /** Largest uniformization step count θ·T (plus its tail) for the counting matrices. */
  maxUniformizationSteps: 100_000,
  /** Largest accepted phase rate or |generator entry|, per second. */
  maxRate: 1e9,
  /** Fewest and most timestamps a trace may hold. */
  minTraceArrivals: 1_000,
  maxTraceArrivals: 10_000_000,
} as const;
