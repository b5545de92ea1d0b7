import type { ModelParams } from '../model/scenario.js';
import type { EngineOutput } from './engine/index.js';
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

/** A result plus the cost of each batch-means group, for paired comparisons of policies run on one seed. */
export interface DetailedSimulation {
  readonly result: SimulationResult;
  /** w_lat·R̄_j + w_pow·P̄_j of group j (length = result.confidence.batches). */
  readonly groupCost: Float64Array;
}

/** The single-server run's figures: server 0, class 0 of the engine's output. */
export function summarize(
  sys: Pick<ModelParams, 'idlePower' | 'latencyWeight' | 'powerWeight'>,
  out: EngineOutput,
  meta: { policy: string; arrivals: 'poisson' | 'trace' | 'mmpp'; seed: number },
): DetailedSimulation {
  const T = out.windowSeconds;
  const G = out.groups;
  const busy = out.accBusy[0];
  const batches = out.accBatches[0];
  const meanResponseTime = out.classSum[0] / out.measured;
  const meanPower = (out.accEnergy[0] + sys.idlePower * (T - busy)) / T;
  const groupResponse = new Float64Array(G);
  const groupCost = new Float64Array(G);
  for (let g = 0; g < G; g++) {
    groupResponse[g] = out.groupSum[g] / out.groupN[g];
    groupCost[g] = sys.latencyWeight * groupResponse[g] + sys.powerWeight * out.groupPower[g];
  }
  const h = out.classHist[0];
  const sizes = out.batchSizes[0];
  let last = sizes.length - 1;
  while (last > 1 && sizes[last] === 0) last--;
  const result: SimulationResult = {
    policy: meta.policy,
    arrivals: meta.arrivals,
    seed: meta.seed,
    requests: out.measured,
    warmupRequests: out.warmupRequests,
    batches,
    simulatedSeconds: T,
    averageCost: sys.latencyWeight * meanResponseTime + sys.powerWeight * meanPower,
    meanResponseTime,
    meanPower,
    utilization: busy / T,
    throughput: out.measured / T,
    meanBatchSize: out.measured / batches,
    confidence: {
      level: CONFIDENCE_LEVEL,
      batches: G,
      averageCost: meanHalfWidth(groupCost, G, CONFIDENCE_LEVEL),
      meanResponseTime: meanHalfWidth(groupResponse, G, CONFIDENCE_LEVEL),
      meanPower: meanHalfWidth(out.groupPower, G, CONFIDENCE_LEVEL),
    },
    percentiles: {
      p50: h.quantile(0.5),
      p90: h.quantile(0.9),
      p95: h.quantile(0.95),
      p99: h.quantile(0.99),
      p999: h.quantile(0.999),
      max: h.max,
    },
    batchSizeHistogram: Array.from(sizes.subarray(0, last + 1)),
    stop: out.stop,
  };
  return { result, groupCost };
}
