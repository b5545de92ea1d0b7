import type { SimPolicy, WaitingQueue } from './types.js';

export interface RayServeOptions {
  /** @serve.batch batch_wait_timeout_s (seconds, ≥ 0). */
  readonly batchWaitTimeout: number;
  /** @serve.batch max_batch_size. */
  readonly maxBatchSize: number;
  /** @serve.deployment max_ongoing_requests (Ray's default: 5). */
  readonly maxOngoingRequests: number;
}

/** Ray Serve's default max_ongoing_requests (python/ray/serve/_private/constants.py, DEFAULT_MAX_ONGOING_REQUESTS). */
export const RAY_DEFAULT_MAX_ONGOING_REQUESTS = 5;

/**
 * One Ray Serve replica running an `@serve.batch` handler (python/ray/serve/batching.py,
 * `_BatchQueue`), `max_concurrent_batches = 1`, `num_replicas = 1`, a handler that awaits the
 * accelerator (does not block the event loop):
 *
 * - **Admission** (python/ray/serve/_private/replica.py, `handle_request_with_rejection`): the
 *   replica holds at most `max_ongoing_requests` requests (being batched, batched and waiting, or
 *   in service); the router keeps the rest upstream, first come first served, and sends them as
 *   slots free, that is when a batch completes (here at once; Ray's router retries with backoff).
 * - **Forming** (`_BatchQueue.wait_for_batch`): a batch starts with the first request admitted
 *   after the previous batch closed (or one already waiting), takes every request admitted within
 *   `batch_wait_timeout_s` of that moment, and closes at that timeout or as soon as it holds
 *   `max_batch_size`. Requests admitted together (after a completion) join one batch, up to the max.
 * - **Serving** (`_process_batches`): the loop does not wait for the batch it formed: it hands it
 *   to a task behind a semaphore of `max_concurrent_batches` and starts forming the next at once.
 *   So batches form while one is in service, and closed batches wait their turn in order.
 *
 * A batch is thus a run of consecutive requests (admission is FIFO), the policy serves the oldest
 * closed one when the accelerator is free, and it replays admission and forming from the arrival
 * times of the waiting requests (bindQueue), since both go on while a batch is in service.
 */
export class RayServePolicy implements SimPolicy {
  readonly padding = null;
  readonly name: string;
  readonly sustainedBatch: number;
  private readonly timeout: number;
  private readonly max: number;
  private readonly ongoing: number;
  private queue: WaitingQueue | null = null;
  /** Waiting requests (oldest first) already accounted for. */
  private known = 0;
  /** Of those, the newest ones the replica has not admitted yet. */
  private upstream = 0;
  /** Requests the replica holds (in service, in closed batches, in the batch being formed). */
  private held = 0;
  private inService = 0;
  /** When the batch in service started, and when it completes (Infinity: none pending). */
  private startedAt = 0;
  private doneAt = Infinity;
  /** The batch being formed: its size (0: none) and when it started. */
  private forming = 0;
  private formedFrom = 0;
  /** Closed batches waiting for the accelerator, oldest first (a ring that grows). */
  private closed = new Int32Array(64);
  private closedHead = 0;
  private closedCount = 0;

  constructor(o: RayServeOptions) {
    if (!(o.batchWaitTimeout >= 0)) throw new Error(`RayServePolicy: batch_wait_timeout_s must be ≥ 0 (got ${o.batchWaitTimeout})`);
    if (!(Number.isInteger(o.maxOngoingRequests) && o.maxOngoingRequests >= 1)) {
      throw new Error(`RayServePolicy: max_ongoing_requests must be an integer ≥ 1 (got ${o.maxOngoingRequests})`);
    }
    this.timeout = o.batchWaitTimeout;
    this.max = o.maxBatchSize;
    this.ongoing = o.maxOngoingRequests;
    // No batch can hold more than the replica does.
    this.sustainedBatch = Math.min(o.maxBatchSize, o.maxOngoingRequests);
    this.name = `ray-serve:batch_wait_timeout_s=${+o.batchWaitTimeout.toPrecision(12)},max_batch_size=${o.maxBatchSize},max_ongoing_requests=${o.maxOngoingRequests}`;
  }

  bindQueue(queue: WaitingQueue): void {
    this.queue = queue;
  }

  decide(queue: number, now: number): number {
    const q = this.queue;
    if (q === null) throw new Error(`policy ${this.name} needs its queue (bindQueue) before the run`);
    // Arrivals since the last epoch, in order: admitted if the replica has room and nobody waits upstream.
    // (An arrival at the very instant of a completion comes first, as in the engine.)
    for (let i = this.known; i < queue; i++) {
      const t = q.at(i);
      if (t > this.doneAt) this.complete();
      this.closeDue(t);
      if (this.upstream === 0 && this.held < this.ongoing) this.admit(t, 1);
      else this.upstream++;
    }
    this.known = queue;
    if (this.doneAt <= now) this.complete();
    this.closeDue(now);
    if (this.closedCount === 0) return 0;
    const b = this.closed[this.closedHead];
    this.closedHead = (this.closedHead + 1) % this.closed.length;
    this.closedCount--;
    this.inService = b;
    this.startedAt = now;
    this.known -= b;
    return b;
  }

  wakeAt(): number {
    return this.forming > 0 ? this.formedFrom + this.timeout : Infinity;
  }

  onBatchDone(_size: number, serviceTime: number): void {
    this.doneAt = this.startedAt + serviceTime;
  }

  reset(): void {
    this.known = this.upstream = this.held = this.inService = this.forming = 0;
    this.doneAt = Infinity;
    this.closedHead = this.closedCount = 0;
  }

  /** The batch in service finishes and leaves the replica; the router sends as many waiting requests as fit. */
  private complete(): void {
    const t = this.doneAt;
    this.doneAt = Infinity;
    this.closeDue(t);
    this.held -= this.inService;
    this.inService = 0;
    const k = Math.min(this.upstream, this.ongoing - this.held);
    if (k > 0) {
      this.upstream -= k;
      this.admit(t, k);
    }
  }

  /** k requests enter the replica at time t and join the batch being formed (a new one if none, or if it fills). */
  private admit(t: number, k: number): void {
    this.held += k;
    while (k > 0) {
      if (this.forming === 0) this.formedFrom = t;
      const take = Math.min(k, this.max - this.forming);
      this.forming += take;
      k -= take;
      if (this.forming === this.max) this.close();
    }
    this.closeDue(t);
  }

  /** The batch being formed closes once its timeout has run out by time t. */
  private closeDue(t: number): void {
    if (this.forming > 0 && this.formedFrom + this.timeout <= t) this.close();
  }

  private close(): void {
    if (this.closedCount === this.closed.length) {
      const grown = new Int32Array(this.closed.length * 2);
      for (let i = 0; i < this.closedCount; i++) grown[i] = this.closed[(this.closedHead + i) % this.closed.length];
      this.closed = grown;
      this.closedHead = 0;
    }
    this.closed[(this.closedHead + this.closedCount) % this.closed.length] = this.forming;
    this.closedCount++;
    this.forming = 0;
  }
}
