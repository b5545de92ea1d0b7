import type { SimPolicy } from '../../sim/policies/types.js';

/**
 * The batcher of TorchServe and Ray Serve, for the simulator. Both run one loop per worker:
 * when the worker is free it blocks until a request is there, takes it, and then collects
 * more for up to the delay (TorchServe `maxBatchDelay`, Ray `batch_wait_timeout_s`),
 * measured from that moment, not from the request's arrival (TorchServe's
 * Model.pollBatch, Ray's _BatchQueue.wait_for_batch); it stops early once the batch is
 * full. So after a busy spell the clock restarts at the completion even if the oldest
 * request has waited long already, unlike Triton and TF Serving, whose timeout runs from
 * the oldest request's arrival.
 */
export class CollectorPolicy implements SimPolicy {
  readonly padding = null;
  readonly sustainedBatch: number;
  /** When the current batch started collecting (its first request was taken); -1 when none. */
  private since = -1;

  constructor(
    /** Seconds. */
    private readonly delay: number,
    private readonly max: number,
    readonly name: string,
  ) {
    this.sustainedBatch = max;
  }

  decide(queue: number, now: number): number {
    if (queue >= this.max) {
      this.since = -1;
      return this.max;
    }
    if (this.since < 0) this.since = now;
    if (now >= this.since + this.delay) {
      this.since = -1;
      return queue;
    }
    return 0;
  }

  wakeAt(): number {
    return this.since + this.delay;
  }

  onBatchDone(): void {}

  reset(): void {
    this.since = -1;
  }
}
