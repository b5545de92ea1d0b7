/**
 * Documented bounds on what one solve may ask for. They keep a single request from
 * exhausting memory or time; each is reported by name when exceeded.
 */
export const LIMITS = {
  /** Largest accepted max batch size B. */
  maxBatchSize: 1024,
  /** Largest truncation level S (states 0..S) a solve may use, automatic or explicit. */
  maxQueue: 200_000,
  /** Largest number of band entries (states × (B + pmf width)) a solve may allocate (≈ 8 bytes each). */
  maxBandEntries: 40_000_000,
  /**
   * Smallest accepted offered load λ·l(1). Below it a request almost always finds the server
   * idle and alone, and the gap between waiting (1/λ) and serving (l) time scales, over ~1e9,
   * leaves f64 value iteration no digits to certify g* with (at λ·l(1) = 1e-18 the interval was
   * ±5e5 around 0.006).
   */
  minOfferedLoad: 1e-9,
  /** Largest accepted arrival rate, requests/s. */
  maxArrivalRate: 1e9,
  /** Smallest / largest accepted service time of one batch, seconds. */
  minServiceTime: 1e-9,
  maxServiceTime: 1e6,
  /**
   * Accepted coefficient of variation of a gamma service time. Below the minimum the law is
   * deterministic for every purpose, and its shape 1/cv² leaves the range where the count law
   * and the sampler are exact in f64 (cv = 5e-324 squares to 0).
   */
  minCv: 1e-6,
  maxCv: 4,
  /** Largest accepted power draw, watts. */
  maxWatts: 1e7,
  /** Largest accepted objective weight. */
  maxWeight: 1e12,
  /** Tolerance range for the relative bound gap. */
  minTolerance: 1e-13,
  maxTolerance: 1e-2,
  /** Largest accepted explicit iteration cap. */
  maxIterations: 10_000_000,
} as const;
