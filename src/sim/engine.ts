import { throwIfAborted } from '../model/errors.js';
import type { ArrivalStream } from './arrivals.js';
import { LogHistogram } from './histogram.js';
import type { SimPolicy } from './policies/types.js';
import { ArrivalQueue } from './queue.js';
import type { ServiceSampler } from './service.js';

const CHECK_EVERY = 1 << 18;

/** The system of spec §1 as the engine needs it (arrays indexed by batch size 1..B). */
export interface EngineSystem {
  readonly maxBatchSize: number;
  readonly busyPower: Float64Array;
  readonly idlePower: number;
  readonly latencyWeight: number;
  readonly powerWeight: number;
}

export interface EngineOptions {
  /** Stop at the first batch start once this many requests have been measured. */
  readonly requests: number;
  /** Requests that start service before measurement begins (the run starts empty). */
  readonly warmup: number;
  /** Number of batch-means groups the measured requests are split into. */
  readonly ciBatches: number;
  /** Refuse to hold more waiting requests than this (an unstable policy). */
  readonly maxQueued: number;
  readonly signal?: AbortSignal;
  /** Called about every 2^18 simulated requests with (measured, requests). */
  readonly onProgress?: (measured: number, total: number) => void;
}

/** Raw sums of one run; `summarize` turns them into a SimulationResult. */
export interface EngineOutput {
  readonly measured: number;
  readonly warmupRequests: number;
  readonly batches: number;
  /** Length of the measurement window, from the first measured batch start to the stop. */
  readonly windowSeconds: number;
  readonly busySeconds: number;
  /** Energy over the window, joules (busy batches plus idle time at P0). */
  readonly energy: number;
  readonly sumResponse: number;
  readonly histogram: LogHistogram;
  /** batchSizes[b] = measured batches that served b requests. */
  readonly batchSizes: Float64Array;
  /** Per batch-means group: mean response time, mean power, cost. */
  readonly groupResponse: Float64Array;
  readonly groupPower: Float64Array;
  readonly groupCost: Float64Array;
  readonly groups: number;
  /** `requests`: the target was reached; `arrivals-exhausted`: a trace ran out first. */
  readonly stop: 'requests' | 'arrivals-exhausted';
}

/**
 * Runs the batch-service queue of spec §1 in continuous time. The server is either busy
 * or idle; the engine is only ever at a decision epoch with the server idle:
 *  - after each batch completion, with every request that arrived meanwhile queued;
 *  - at each arrival while idle (the arrival joins the queue first);
 *  - at a policy's wake-up time while idle (Triton/TF-Serving timeouts).
 * A batch takes the oldest requests (FIFO); its service time is drawn when it starts, so
 * each request's response time (arrival → completion of its batch) is known then and is
 * recorded at once, leaving no per-request state after the start. The hot loop allocates
 * nothing: the queue is a typed ring, sums are numbers, percentiles a typed histogram.
 *
 * Measurement: the first `warmup` requests to start service are not measured; the window
 * runs from the next batch start to the first batch start at which `requests` have been
 * measured, so it holds whole cycles (service plus following idle time) and time averages
 * (power, utilisation) and request averages cover the same batches.
 */
export function runEngine(
  sys: EngineSystem,
  policy: SimPolicy,
  arrivals: ArrivalStream,
  service: ServiceSampler,
  o: EngineOptions,
): EngineOutput {
  const B = sys.maxBatchSize;
  const power = sys.busyPower;
  const P0 = sys.idlePower;
  const pad = policy.padding;
  const queue = new ArrivalQueue(1024, o.maxQueued);
  const hist = new LogHistogram();
  const batchSizes = new Float64Array(B + 1);
  const nb = o.ciBatches;
  const groupResponse = new Float64Array(nb);
  const groupPower = new Float64Array(nb);
  const groupCost = new Float64Array(nb);
  policy.reset();
  policy.bindArrivals?.(arrivals);

  let now = 0;
  let nextArrival = arrivals.next();
  let served = 0;
  let measuring = o.warmup <= 0;
  let windowStart = NaN;
  let measured = 0;
  let batches = 0;
  let busy = 0;
  let busyEnergy = 0;
  let sumResponse = 0;
  // The current batch-means group.
  let groups = 0;
  let groupEdge = Math.ceil(o.requests / nb);
  let groupStart = NaN;
  let gN = 0;
  let gSum = 0;
  let gBusy = 0;
  let gEnergy = 0;
  let stop: 'requests' | 'arrivals-exhausted' = 'requests';
  let nextCheck = CHECK_EVERY;

  const closeGroup = (): void => {
    const span = now - groupStart;
    if (gN > 0 && span > 0 && groups < nb) {
      const r = gSum / gN;
      const p = (gEnergy + P0 * (span - gBusy)) / span;
      groupResponse[groups] = r;
      groupPower[groups] = p;
      groupCost[groups] = sys.latencyWeight * r + sys.powerWeight * p;
      groups++;
    }
    groupStart = now;
    gN = 0;
    gSum = 0;
    gBusy = 0;
    gEnergy = 0;
  };

  for (;;) {
    // ---- decision epoch, server idle, at `now`
    const q = queue.count;
    let b = 0;
    if (q > 0) {
      const oldest = queue.oldest();
      b = policy.decide(q, now, oldest);
      if (b === 0) {
        const wake = policy.wakeAt(q, now, oldest);
        if (!(wake > now) && wake !== Infinity) {
          throw new Error(`policy ${policy.name} waited at t = ${now} s but asked to wake at ${wake} s, not later`);
        }
        if (wake < nextArrival) {
          now = wake;
          continue;
        }
      } else if (!(b >= 1 && b <= q && b <= B && Number.isInteger(b))) {
        throw new Error(`policy ${policy.name} chose a batch of ${b} with ${q} waiting (max batch size ${B})`);
      }
    }
    if (b === 0) {
      if (nextArrival === Infinity) {
        stop = 'arrivals-exhausted';
        break;
      }
      now = nextArrival;
      queue.push(now);
      nextArrival = arrivals.next();
      continue;
    }

    // ---- start a batch of b at `now`
    if (!measuring && served >= o.warmup) measuring = true;
    if (measuring) {
      if (batches === 0) {
        windowStart = now;
        groupStart = now;
      } else if (measured >= o.requests) {
        closeGroup();
        break;
      } else if (measured >= groupEdge) {
        closeGroup();
        groupEdge = Math.ceil(((groups + 1) * o.requests) / nb);
      }
    }
    const size = pad === null ? b : pad[b];
    const T = service.sample(size);
    const done = now + T;
    if (measuring) {
      const buf = queue.buf;
      const mask = queue.mask;
      const head = queue.head;
      let s = 0;
      for (let i = 0; i < b; i++) {
        const r = done - buf[(head + i) & mask];
        s += r;
        hist.record(r);
      }
      const e = power[size] * T;
      sumResponse += s;
      measured += b;
      busy += T;
      busyEnergy += e;
      gSum += s;
      gN += b;
      gBusy += T;
      gEnergy += e;
      batchSizes[b]++;
      batches++;
    }
    queue.drop(b);
    served += b;
    while (nextArrival <= done) {
      queue.push(nextArrival);
      nextArrival = arrivals.next();
    }
    now = done;
    policy.onBatchDone(b, T);
    if (served >= nextCheck) {
      // About every 2^18 requests (tens of ms): cheap, and an abort is seen quickly.
      nextCheck = served + CHECK_EVERY;
      throwIfAborted(o.signal);
      o.onProgress?.(measured, o.requests);
    }
  }

  if (measuring && batches > 0 && stop === 'arrivals-exhausted') closeGroup();
  const windowSeconds = batches > 0 ? now - windowStart : 0;
  return {
    measured,
    warmupRequests: served - measured,
    batches,
    windowSeconds,
    busySeconds: busy,
    energy: busyEnergy + P0 * (windowSeconds - busy),
    sumResponse,
    histogram: hist,
    batchSizes,
    groupResponse,
    groupPower,
    groupCost,
    groups,
    stop,
  };
}
