/** Bounds on one simulation, so that a single request cannot exhaust memory or time. */
export const SIM_LIMITS = {
  /** Most measured requests per run (about a minute of one core). */
  maxRequests: 200_000_000,
  /** Most waiting requests held at once (16 Mi × 8 bytes); only an unstable policy gets there. */
  maxQueued: 1 << 24,
  /** Most timestamps in a replayed trace. */
  maxTraceArrivals: 50_000_000,
  /** Most batch-means groups. */
  maxCiBatches: 1000,
} as const;

export const SIM_DEFAULTS = {
  requests: 1_000_000,
  seed: 1,
  /** Batch-means groups: 32 keeps each group long (10⁶/32 ≈ 31 000 requests) yet gives 31 degrees of freedom. */
  ciBatches: 32,
  /** Warm-up as a share of the measured requests (the run starts empty). */
  warmupShare: 0.01,
  /** …but at least this many requests. */
  minWarmup: 1000,
} as const;

/** The warm-up of a run measuring `requests` (SIM_DEFAULTS' share, at least its minimum). */
export function defaultWarmup(requests: number): number {
  return Math.max(SIM_DEFAULTS.minWarmup, Math.ceil(requests * SIM_DEFAULTS.warmupShare));
}
