import type { SimPolicy } from './types.js';

export interface TritonOptions {
  /** max_queue_delay_microseconds, here in seconds. */
  readonly maxQueueDelay: number;
  /** preferred_batch_size, ascending; empty = none. */
  readonly preferredBatchSizes: readonly number[];
  /** max_batch_size of the model config. */
  readonly maxBatchSize: number;
}

/**
 * Triton's dynamic batcher (model_config `dynamic_batching`), as documented: when the model
 * instance is free it forms a batch from the queue in arrival order. If a preferred batch
 * size can be formed it sends the largest one it can; with no preferred sizes, a queue of
 * max_batch_size or more is sent as max_batch_size. Otherwise it waits, but never longer than
 * the oldest request's arrival plus max_queue_delay_microseconds; then it sends what it has
 * (up to max_batch_size). The server is free only at batch completions, so a timer that runs
 * out during service acts at the completion.
 */
export class TritonPolicy implements SimPolicy {
  readonly padding = null;
  readonly name: string;
  readonly sustainedBatch: number;
  private readonly delay: number;
  private readonly max: number;
  /** bestPreferred[n] = largest preferred size ≤ n, 0 if none (n = 0..max). */
  private readonly bestPreferred: Int32Array | null;

  constructor(o: TritonOptions) {
    this.delay = o.maxQueueDelay;
    this.max = o.maxBatchSize;
    const pref = [...o.preferredBatchSizes].sort((a, b) => a - b);
    if (pref.length > 0) {
      this.bestPreferred = new Int32Array(o.maxBatchSize + 1);
      for (let n = 1; n <= o.maxBatchSize; n++) {
        let best = 0;
        for (const p of pref) if (p <= n) best = p;
        this.bestPreferred[n] = best;
      }
    } else {
      this.bestPreferred = null;
    }
    this.sustainedBatch = pref.length > 0 ? pref[pref.length - 1] : o.maxBatchSize;
    const us = Math.round(o.maxQueueDelay * 1e6 * 1e6) / 1e6;
    this.name =
      `triton:max_queue_delay_microseconds=${us}` +
      (pref.length > 0 ? `,preferred_batch_size=${pref.join('|')}` : '') +
      `,max_batch_size=${o.maxBatchSize}`;
  }

  decide(queue: number, now: number, oldestArrival: number): number {
    const cap = queue < this.max ? queue : this.max;
    if (this.bestPreferred !== null) {
      const p = this.bestPreferred[cap];
      if (p > 0) return p;
    } else if (queue >= this.max) {
      return this.max;
    }
    return now >= oldestArrival + this.delay ? cap : 0;
  }

  wakeAt(_queue: number, _now: number, oldestArrival: number): number {
    return oldestArrival + this.delay;
  }

  onBatchDone(): void {}

  reset(): void {}
}
