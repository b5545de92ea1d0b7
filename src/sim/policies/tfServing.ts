import type { SimPolicy } from './types.js';

export interface TfServingOptions {
  /** batch_timeout_micros, here in seconds. */
  readonly batchTimeout: number;
  /** max_batch_size. */
  readonly maxBatchSize: number;
  /** allowed_batch_sizes, ascending, last = max_batch_size; empty = any size. */
  readonly allowedBatchSizes: readonly number[];
}

/**
 * TensorFlow Serving's batching (BatchingParameters, shared batch scheduler, one batch
 * thread). Requests join the open batch; a batch closes when it reaches max_batch_size and
 * the open batch becomes schedulable once its first request has waited batch_timeout_micros.
 * The batch thread takes a closed batch, or a schedulable open batch, when it is free. In
 * queue terms: serve max_batch_size when that many wait; else serve all once the oldest has
 * waited the timeout. With allowed_batch_sizes the batch is padded to the next allowed size,
 * and the accelerator pays for the padded size (service time and power of that size).
 */
export class TfServingPolicy implements SimPolicy {
  readonly name: string;
  readonly sustainedBatch: number;
  readonly padding: Int32Array | null;
  private readonly timeout: number;
  private readonly max: number;

  constructor(o: TfServingOptions) {
    this.timeout = o.batchTimeout;
    this.max = o.maxBatchSize;
    this.sustainedBatch = o.maxBatchSize;
    if (o.allowedBatchSizes.length > 0) {
      const allowed = [...o.allowedBatchSizes].sort((a, b) => a - b);
      this.padding = new Int32Array(o.maxBatchSize + 1);
      for (let b = 1; b <= o.maxBatchSize; b++) this.padding[b] = allowed.find((a) => a >= b) ?? o.maxBatchSize;
    } else {
      this.padding = null;
    }
    const us = Math.round(o.batchTimeout * 1e6 * 1e6) / 1e6;
    this.name =
      `tf-serving:batch_timeout_micros=${us},max_batch_size=${o.maxBatchSize}` +
      (o.allowedBatchSizes.length > 0 ? `,allowed_batch_sizes=${[...o.allowedBatchSizes].sort((a, b) => a - b).join('|')}` : '');
  }

  decide(queue: number, now: number, oldestArrival: number): number {
    if (queue >= this.max) return this.max;
    return now >= oldestArrival + this.timeout ? queue : 0;
  }

  wakeAt(_queue: number, _now: number, oldestArrival: number): number {
    return oldestArrival + this.timeout;
  }

  onBatchDone(): void {}

  reset(): void {}
}
