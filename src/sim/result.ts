import type { EngineOutput, EngineSystem } from './engine.js';
import { meanHalfWidth } from './stats.js';

/** Confidence level of the batch-means intervals. */
export const CONFIDENCE_LEVEL = 0.95;

/** Half-widths of the 95 % batch-means confidence intervals (null: too few groups). */
export interface SimulationConfidence {
  readonly level: number;
  /** Batch-means groups the interval is computed from. */
  readonly batches: number;
  readonly averageCost: number | null;
  readonly meanResponseTime: number | null;
  readonly meanPower: number | null;
}

/** Response-time percentiles, seconds. */
export interface ResponsePercentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

/** What one simulation reports. Times in seconds, power in watts. */
export interface SimulationResult {
  /** Canonical spec of the simulated policy. */
  readonly policy: string;
  readonly arrivals: 'poisson' | 'trace' | 'mmpp';
  readonly seed: number;
  /** Requests measured (after warm-up). */
  readonly requests: number;
  /** Requests served before measurement began. */
  readonly warmupRequests: number;
  readonly batches: number;
  /** Simulated time covered by the measurement. */
  readonly simulatedSeconds: number;
  /** w_lat·E[R] + w_pow·E[P] from the simulated means. */
  readonly averageCost: number;
  readonly meanResponseTime: number;
  readonly meanPower: number;
  /** Share of the time a batch is in service. */
  readonly utilization: number;
  /** Requests served per second. */
  readonly throughput: number;
  readonly meanBatchSize: number;
  readonly confidence: SimulationConfidence;
  readonly percentiles: ResponsePercentiles;
  /** batchSizeHistogram[b] = batches that served b requests (index 0 unused). */
  readonly batchSizeHistogram: number[];
  /** `requests` or `arrivals-exhausted` (a trace ended before the requested count). */
  readonly stop: 'requests' | 'arrivals-exhausted';
}

export function summarize(
  sys: EngineSystem,
  out: EngineOutput,
  meta: { policy: string; arrivals: 'poisson' | 'trace' | 'mmpp'; seed: number },
): SimulationResult {
  const T = out.windowSeconds;
  const meanResponseTime = out.sumResponse / out.measured;
  const meanPower = out.energy / T;
  const h = out.histogram;
  let last = out.batchSizes.length - 1;
  while (last > 1 && out.batchSizes[last] === 0) last--;
  return {
    policy: meta.policy,
    arrivals: meta.arrivals,
    seed: meta.seed,
    requests: out.measured,
    warmupRequests: out.warmupRequests,
    batches: out.batches,
    simulatedSeconds: T,
    averageCost: sys.latencyWeight * meanResponseTime + sys.powerWeight * meanPower,
    meanResponseTime,
    meanPower,
    utilization: out.busySeconds / T,
    throughput: out.measured / T,
    meanBatchSize: out.measured / out.batches,
    confidence: {
      level: CONFIDENCE_LEVEL,
      batches: out.groups,
      averageCost: meanHalfWidth(out.groupCost, out.groups, CONFIDENCE_LEVEL),
      meanResponseTime: meanHalfWidth(out.groupResponse, out.groups, CONFIDENCE_LEVEL),
      meanPower: meanHalfWidth(out.groupPower, out.groups, CONFIDENCE_LEVEL),
    },
    percentiles: {
      p50: h.quantile(0.5),
      p90: h.quantile(0.9),
      p95: h.quantile(0.95),
      p99: h.quantile(0.99),
      p999: h.quantile(0.999),
      max: h.max,
    },
    batchSizeHistogram: Array.from(out.batchSizes.subarray(0, last + 1)),
    stop: out.stop,
  };
}
