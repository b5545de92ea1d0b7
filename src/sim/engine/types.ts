import type { ModelParams } from '../../model/scenario.js';
import type { LogHistogram } from '../histogram.js';

/** One class's service-time law on one server: mean l(b) by size b = 1..B, and its distribution. */
export type ServiceLaw = Pick<ModelParams, 'meanService' | 'distribution' | 'cv'>;

/** One server (accelerator) as the engine needs it; arrays indexed by batch size 1..B. */
export interface EngineServer {
  readonly maxBatchSize: number;
  /** service[c]: the law of class c's batches on this server. */
  readonly service: readonly ServiceLaw[];
  readonly busyPower: Float64Array;
  /** Optional, per-class batching only: classPower[c] = busy power of class c's batches by size (else busyPower). */
  readonly classPower?: readonly Float64Array[];
  readonly idlePower: number;
}

export interface EngineSystem {
  readonly servers: readonly EngineServer[];
  /**
   * false: each server keeps one policy per class and serves single-class batches; true: one
   * policy per server sees every class, and a batch takes the oldest requests of any class.
   */
  readonly mixed: boolean;
}

/** What a router sees of the servers at an arrival. */
export interface FleetView {
  readonly size: number;
  /** Requests waiting at accelerator a (all classes). */
  waiting(a: number): number;
  /** Requests waiting at accelerator a of class c. */
  waitingOf(a: number, c: number): number;
  /** Requests in the batch now in service at a (0 when idle). */
  inService(a: number): number;
  /** Seconds until a's current batch completes (0 when idle). */
  remaining(a: number): number;
  /** Whether a's running batch holds requests of class c (false when idle). */
  serving(a: number, c: number): boolean;
  /** Amortised work of one class-c request on a: l(B)/B of its kind, seconds. */
  perItem(a: number, c: number): number;
}

/** Picks the server an arriving request joins (src/fleet/routers.ts holds the ones users name). */
export interface Router {
  readonly name: string;
  route(cls: number, view: FleetView): number;
  /** Back to the initial state (a fresh run with the same seed repeats itself). */
  reset(): void;
}

export interface EngineOptions {
  /** Stop at the first batch start once this many requests have been measured. */
  readonly requests: number;
  /** Requests that start service before measurement begins (the run starts empty). */
  readonly warmup: number;
  /** Number of batch-means groups the measured requests are split into. */
  readonly ciBatches: number;
  /** Seed of the service-time streams (server a draws from stream STREAM_SERVICE + a). */
  readonly seed: number;
  /** Refuse to hold more waiting requests than this at one (server, class). */
  readonly maxQueued: number;
  /** The error for a queue that passed maxQueued at time `now` (it names the field to blame). */
  readonly overflow: (limit: number, now: number) => Error;
  readonly signal?: AbortSignal;
  /** Called every 2^16 served requests or so with (measured, requests). */
  readonly onProgress?: (measured: number, total: number) => void;
  /** Every served request (warm-up included): its arrival tag, class, server and response time. */
  readonly onServed?: (tag: number, cls: number, server: number, response: number) => void;
}

/** Raw sums of one run; src/sim/result.ts and src/fleet/result.ts turn them into results. */
export interface EngineOutput {
  readonly measured: number;
  readonly warmupRequests: number;
  /** Length of the measurement window, from the first measured batch start to the stop. */
  readonly windowSeconds: number;
  /** `requests`: the target was reached; `arrivals-exhausted`: a trace ran out first. */
  readonly stop: 'requests' | 'arrivals-exhausted';
  /** Per class c: measured requests, sum of response times, of head-of-line blocking, and percentiles. */
  readonly classN: Float64Array;
  readonly classSum: Float64Array;
  readonly classHol: Float64Array;
  readonly classHist: readonly LogHistogram[];
  /** Per server a, over the window: requests, batches, busy seconds, busy energy (joules). */
  readonly accServed: Float64Array;
  readonly accBatches: Float64Array;
  readonly accBusy: Float64Array;
  readonly accEnergy: Float64Array;
  /** batchSizes[a][b] = measured batches of b requests on server a. */
  readonly batchSizes: readonly Float64Array[];
  /** Per group g and class c at [g·C + c]: sum and count of response times. */
  readonly groupSum: Float64Array;
  readonly groupN: Float64Array;
  /** Per group: mean power of all servers, watts. */
  readonly groupPower: Float64Array;
  readonly groups: number;
}
