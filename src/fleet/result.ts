import { CONFIDENCE_LEVEL } from '../sim/result.js';
import { meanHalfWidth } from '../sim/stats.js';
import type { EngineOutput } from '../sim/engine/index.js';
import { acceleratorKinds, type FleetParams } from './scenario.js';

/** Response-time figures of one class, seconds. */
export interface ClassMetrics {
  readonly name: string;
  readonly requests: number;
  readonly meanResponseTime: number;
  /** Half-width of the 95 % batch-means interval of the mean (null: too few groups). */
  readonly meanResponseCi: number | null;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  /** Served per second. */
  readonly throughput: number;
  /** Mean time a request of this class waited behind batches of other classes (incl. padding to a slower class). */
  readonly meanHeadOfLineBlocking: number;
}

export interface AcceleratorMetrics {
  readonly index: number;
  readonly kind: string;
  readonly served: number;
  readonly batches: number;
  readonly utilization: number;
  readonly meanBatchSize: number;
  readonly meanPower: number;
  readonly throughput: number;
}

export interface FleetSimulation {
  readonly router: string;
  readonly batching: 'PER_CLASS' | 'MIXED';
  readonly seed: number;
  readonly requests: number;
  readonly warmupRequests: number;
  readonly simulatedSeconds: number;
  /** w_lat · Σ_c weight_c·(sum of class-c responses) / (all responses) + w_pow · fleet power. */
  readonly averageCost: number;
  readonly averageCostCi: number | null;
  /** Fleet power, watts (sum over accelerators). */
  readonly meanPower: number;
  readonly meanPowerCi: number | null;
  /** Mean response time over all requests. */
  readonly meanResponseTime: number;
  readonly classes: readonly ClassMetrics[];
  readonly accelerators: readonly AcceleratorMetrics[];
}

export function summarizeFleet(f: FleetParams, out: EngineOutput, meta: { router: string; seed: number }): FleetSimulation {
  const C = f.classes.length;
  const T = out.windowSeconds;
  const G = out.groups;
  const kindOf = acceleratorKinds(f);
  const groupCost = new Float64Array(G);
  for (let g = 0; g < G; g++) {
    let s = 0;
    let n = 0;
    for (let c = 0; c < C; c++) {
      s += f.classes[c].weight * out.groupSum[g * C + c];
      n += out.groupN[g * C + c];
    }
    groupCost[g] = f.latencyWeight * (n > 0 ? s / n : 0) + f.powerWeight * out.groupPower[g];
  }
  let wsum = 0;
  let all = 0;
  let n = 0;
  for (let c = 0; c < C; c++) {
    wsum += f.classes[c].weight * out.classSum[c];
    all += out.classSum[c];
    n += out.classN[c];
  }
  let power = 0;
  const accelerators = Array.from(out.accServed, (served, a) => {
    const kind = f.kinds[kindOf[a]];
    const p = (out.accEnergy[a] + kind.idlePower * (T - out.accBusy[a])) / T;
    power += p;
    return {
      index: a,
      kind: kind.name,
      served,
      batches: out.accBatches[a],
      utilization: out.accBusy[a] / T,
      meanBatchSize: out.accBatches[a] > 0 ? served / out.accBatches[a] : 0,
      meanPower: p,
      throughput: served / T,
    };
  });
  const classes = f.classes.map((cl, c) => {
    const means: number[] = [];
    for (let g = 0; g < G; g++) if (out.groupN[g * C + c] > 0) means.push(out.groupSum[g * C + c] / out.groupN[g * C + c]);
    const h = out.classHist[c];
    const k = out.classN[c];
    return {
      name: cl.name,
      requests: k,
      meanResponseTime: out.classSum[c] / k,
      meanResponseCi: meanHalfWidth(means, means.length, CONFIDENCE_LEVEL),
      p50: h.quantile(0.5),
      p99: h.quantile(0.99),
      p999: h.quantile(0.999),
      max: h.max,
      throughput: k / T,
      meanHeadOfLineBlocking: out.classHol[c] / k,
    };
  });
  return {
    router: meta.router,
    batching: f.batching,
    seed: meta.seed,
    requests: out.measured,
    warmupRequests: out.warmupRequests,
    simulatedSeconds: T,
    averageCost: f.latencyWeight * (wsum / n) + f.powerWeight * power,
    averageCostCi: meanHalfWidth(groupCost, G, CONFIDENCE_LEVEL),
    meanPower: power,
    meanPowerCi: meanHalfWidth(out.groupPower, G, CONFIDENCE_LEVEL),
    meanResponseTime: all / n,
    classes,
    accelerators,
  };
}
