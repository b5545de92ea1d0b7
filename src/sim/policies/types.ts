import type { ArrivalStream } from '../arrivals.js';

/**
 * What the simulator asks of a batching policy. The engine calls `decide` at every decision
 * epoch of docs/model.md §2 (a batch completion, an arrival while idle) and, for timer-based
 * policies, at the wake-up time they ask for; it never calls it with an empty queue.
 *
 * Contract: `decide` returns how many of the oldest waiting requests to serve now (1..queue,
 * at most the scenario's B) or 0 to wait. After a 0 the engine reads `wakeAt`; a finite time
 * must lie in the future, and at that time `decide` must serve (the timeout has expired).
 */
export interface SimPolicy {
  /** Canonical spec string, e.g. `triton:max_queue_delay_microseconds=2000,max_batch_size=32`. */
  readonly name: string;
  /**
   * Batch size the policy serves when the queue is long, for the stability check
   * λ·l(size) < size; 0 when it is not fixed in advance (AIMD).
   */
  readonly sustainedBatch: number;
  /**
   * Batch size the accelerator computes for a batch of b requests, for policies that pad
   * (TF-Serving's allowed_batch_sizes); null means b itself. Service time and power follow it.
   */
  readonly padding: Int32Array | null;
  decide(queue: number, now: number, oldestArrival: number): number;
  /** Absolute time at which to decide again while waiting; Infinity = at the next arrival only. */
  wakeAt(queue: number, now: number, oldestArrival: number): number;
  /** Told at each batch completion (before the decision there): size and service time. */
  onBatchDone(size: number, serviceTime: number): void;
  /** Back to the initial state, so that one object runs twice identically. */
  reset(): void;
  /**
   * Optional: called once before a run with its arrival stream, for policies that act on
   * more than the queue (the arrival phase of MMPP arrivals, src/sim/mmpp.ts).
   */
  bindArrivals?(arrivals: ArrivalStream): void;
  /**
   * Optional: called once before a run with the server's waiting queue (read-only), for policies
   * whose batches depend on when each waiting request arrived, not only on how many wait (Ray
   * Serve's batcher forms batches while a batch is in service). Single-class runs only.
   */
  bindQueue?(queue: WaitingQueue): void;
  /**
   * Optional: called once before a run with every class's queue at the policy's server
   * (read-only), for joint rules over the state n = (n_1, …, n_C) of docs/model.md §10 (one
   * chooser deciding the class and the size, src/sim/joint). Per-class batching only. At each
   * decision epoch the engine asks its server's class policies in ascending class order,
   * skipping the classes with nothing waiting, all at the same state.
   */
  bindClasses?(queues: ClassQueues): void;
}

/** Every class's waiting requests at one server: the joint state a joint rule decides on. */
export interface ClassQueues {
  readonly classes: number;
  /** n_c: requests of class c waiting. */
  count(c: number): number;
  /** Arrival time of the i-th oldest waiting request of class c (0 = head). */
  at(c: number, i: number): number;
}

/** The waiting requests of one server, oldest first: `at(i)` is the arrival time of the i-th oldest. */
export interface WaitingQueue {
  readonly count: number;
  at(i: number): number;
}
