import { LogHistogram } from '../histogram.js';
import type { EngineOutput, EngineServer } from './types.js';

export interface MeterOptions {
  readonly requests: number;
  readonly warmup: number;
  readonly ciBatches: number;
}

/**
 * The measurement of one run: warm-up, the window, the batch-means groups and the sums (the
 * event loop, run.ts, adds to the sums' arrays itself and calls atBatchStart only at `due`).
 *
 * The first `warmup` requests to start service are not measured; the window runs from the next
 * batch start to the first batch start at which `requests` have been measured, so it holds whole
 * cycles (service plus the idle time after it) and time averages (power, utilisation) and request
 * averages cover the same batches. Groups are cut at batch starts by measured count.
 */
export class Meter {
  measuring: boolean;
  started = false;
  windowStart = NaN;
  measured = 0;
  /** atBatchStart has work only once `measured` reaches this: 0 until the window starts, then the next group edge. */
  due = 0;
  readonly classSum: Float64Array;
  readonly classHol: Float64Array;
  readonly classHist: LogHistogram[];
  readonly accBusy: Float64Array;
  readonly accEnergy: Float64Array;
  /** batchSizes[a][b]: measured batches of b on server a (its requests and batches are summed from it at the end). */
  readonly batchSizes: Float64Array[];
  private readonly C: number;
  readonly groupSum: Float64Array;
  readonly groupN: Float64Array;
  private readonly groupPower: Float64Array;
  groups = 0;
  private groupEdge: number;
  private groupStart = NaN;
  /** Per server, over the current group: busy energy and busy seconds. */
  readonly gEnergy: Float64Array;
  readonly gBusy: Float64Array;
  private readonly idlePower: Float64Array;

  constructor(
    servers: readonly EngineServer[],
    classes: number,
    private readonly o: MeterOptions,
  ) {
    const N = servers.length;
    const nb = o.ciBatches;
    this.C = classes;
    this.measuring = o.warmup <= 0;
    this.groupEdge = Math.ceil(o.requests / nb);
    this.classSum = new Float64Array(classes);
    this.classHol = new Float64Array(classes);
    this.classHist = Array.from({ length: classes }, () => new LogHistogram());
    this.accBusy = new Float64Array(N);
    this.accEnergy = new Float64Array(N);
    this.batchSizes = servers.map((s) => new Float64Array(s.maxBatchSize + 1));
    this.groupSum = new Float64Array(nb * classes);
    this.groupN = new Float64Array(nb * classes);
    this.groupPower = new Float64Array(nb);
    this.gEnergy = new Float64Array(N);
    this.gBusy = new Float64Array(N);
    this.idlePower = Float64Array.from(servers, (s) => s.idlePower);
  }

  /** At a batch start at `now`, with `served` requests started before it: false when the run stops here. */
  atBatchStart(now: number, served: number): boolean {
    if (!this.measuring && served >= this.o.warmup) this.measuring = true;
    if (!this.measuring) return true;
    if (!this.started) {
      this.started = true;
      this.windowStart = now;
      this.groupStart = now;
    } else if (this.measured >= this.o.requests) {
      this.closeGroup(now);
      return false;
    } else if (this.measured >= this.groupEdge) {
      this.closeGroup(now);
      this.groupEdge = Math.ceil(((this.groups + 1) * this.o.requests) / this.o.ciBatches);
    }
    this.due = this.groupEdge;
    return true;
  }

  finish(now: number, served: number, stop: EngineOutput['stop']): EngineOutput {
    if (this.started && stop === 'arrivals-exhausted') this.closeGroup(now);
    // Counts are whole numbers, so sums of them are exact: they need no running totals.
    const classN = new Float64Array(this.C);
    for (let g = 0; g < this.groupN.length; g++) classN[g % this.C] += this.groupN[g];
    const accServed = Float64Array.from(this.batchSizes, (h) => h.reduce((s, n, b) => s + n * b, 0));
    const accBatches = Float64Array.from(this.batchSizes, (h) => h.reduce((s, n) => s + n, 0));
    return {
      measured: this.measured,
      warmupRequests: served - this.measured,
      windowSeconds: this.started ? now - this.windowStart : 0,
      stop,
      classN,
      classSum: this.classSum,
      classHol: this.classHol,
      classHist: this.classHist,
      accServed,
      accBatches,
      accBusy: this.accBusy,
      accEnergy: this.accEnergy,
      batchSizes: this.batchSizes,
      groupSum: this.groupSum,
      groupN: this.groupN,
      groupPower: this.groupPower,
      groups: this.groups,
    };
  }

  private closeGroup(now: number): void {
    const span = now - this.groupStart;
    if (span > 0 && this.groups < this.o.ciBatches) {
      // Each server: its busy energy plus idle power over the rest of the span.
      let energy = 0;
      for (let a = 0; a < this.gEnergy.length; a++) energy += this.gEnergy[a] + this.idlePower[a] * (span - this.gBusy[a]);
      this.groupPower[this.groups++] = energy / span;
    }
    this.groupStart = now;
    this.gEnergy.fill(0);
    this.gBusy.fill(0);
  }
}
