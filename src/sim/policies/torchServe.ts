import type { SimPolicy } from './types.js';

export interface TorchServeOptions {
  /** maxBatchDelay: whole milliseconds, ≥ 0. */
  readonly maxBatchDelayMs: number;
  /** batchSize. */
  readonly batchSize: number;
}

/**
 * TorchServe's batcher, as its source runs it (frontend/server/src/main/java/org/pytorch/serve/
 * wlm/Model.java, `pollBatch`, called by BatchAggregator.getRequest each time the worker is free;
 * one worker, so one batch in service at a time):
 *
 *   take the first job (blocking); maxDelay = maxBatchDelay; begin = currentTimeMillis()
 *   repeat up to batchSize − 1 times:
 *     j = poll(maxDelay ms)          // a queued job at once, else wait up to maxDelay for one
 *     if j is null: stop             // the wait ran out
 *     maxDelay -= currentTimeMillis() − begin; begin = now; add j
 *     if maxDelay ≤ 0: stop
 *
 * Two consequences the simulator keeps:
 * - **maxBatchDelay = 0**: poll(0) still returns a queued job, then maxDelay ≤ 0 stops the loop,
 *   so a batch holds at most 2 jobs however long the queue is.
 * - **The millisecond clock**: maxDelay is charged in whole ticks of currentTimeMillis (here the
 *   simulated clock, ticking at every whole ms of simulated time), while each poll waits the
 *   remaining maxDelay in real time from the moment of the last job taken. So the batch closes
 *   at the first job taken once d ticks have passed since the first job (that job included),
 *   or when a poll of the remaining d − ticks ms, started at the last job taken, finds nothing.
 *   Draining jobs already queued takes no simulated time (no tick).
 */
export class TorchServePolicy implements SimPolicy {
  readonly padding = null;
  readonly name: string;
  readonly sustainedBatch: number;
  private readonly d: number;
  private readonly max: number;
  /** currentTimeMillis when the first job of the batch being collected was taken; -1 when none. */
  private beginTick = -1;
  /** When the running poll times out (seconds). */
  private deadline = Infinity;

  constructor(o: TorchServeOptions) {
    if (!Number.isInteger(o.maxBatchDelayMs) || o.maxBatchDelayMs < 0) throw new Error(`TorchServePolicy: maxBatchDelay must be a whole number of ms ≥ 0 (got ${o.maxBatchDelayMs})`);
    this.d = o.maxBatchDelayMs;
    this.max = o.batchSize;
    // With delay 0 a long queue is served 2 at a time.
    this.sustainedBatch = this.d === 0 ? Math.min(2, o.batchSize) : o.batchSize;
    this.name = `torchserve:maxBatchDelay=${this.d}ms,batchSize=${o.batchSize}`;
  }

  decide(queue: number, now: number): number {
    if (this.beginTick < 0) {
      // The worker is free: it takes the first job and drains what is queued (no time passes).
      if (this.d === 0 || queue >= this.max) return Math.min(queue, this.d === 0 ? 2 : this.max, this.max);
      this.beginTick = tick(now);
      this.deadline = now + this.d / 1e3;
      return 0;
    }
    // Collecting: called at an arrival (the running poll returns it) or when the poll times out.
    if (queue >= this.max || now >= this.deadline) return this.close(queue);
    const elapsed = tick(now) - this.beginTick;
    if (elapsed >= this.d) return this.close(queue);
    this.deadline = now + (this.d - elapsed) / 1e3;
    return 0;
  }

  wakeAt(): number {
    return this.deadline;
  }

  onBatchDone(): void {}

  reset(): void {
    this.beginTick = -1;
    this.deadline = Infinity;
  }

  private close(queue: number): number {
    this.beginTick = -1;
    this.deadline = Infinity;
    return Math.min(queue, this.max);
  }
}

/** System.currentTimeMillis() on the simulated clock. */
function tick(t: number): number {
  return Math.floor(t * 1e3);
}
