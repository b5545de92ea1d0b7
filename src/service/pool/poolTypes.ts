/** The worker pool's options, statistics and events (workerPool.ts). */

export interface PoolOptions {
  /** Worker threads = jobs that run at once (the service's max concurrent solves). */
  readonly size: number;
  /** Single calls' jobs that may wait for a worker before `submit` refuses with RESOURCE_EXHAUSTED. */
  readonly maxQueued: number;
  /** Calls of one peer (client connection) that may have a job waiting; past it, RESOURCE_EXHAUSTED. */
  readonly maxQueuedPerPeer?: number;
  /** Module URLs each worker imports before its first job (e.g. a GPU provider registration). */
  readonly setupModules?: readonly string[];
  /**
   * How long an aborted job may take to stop by itself before its worker is terminated and
   * replaced (default 1 s). The solvers see a cancel within milliseconds (the shared cancel
   * flag, checked between sweeps and every few hundred states within one), so this is a backstop
   * for code without cancel points.
   */
  readonly abortGraceMs?: number;
}

export interface PoolStats {
  readonly size: number;
  readonly busy: number;
  readonly queued: number;
}

export interface JobEnd {
  readonly kind: string;
  readonly outcome: 'ok' | 'failed' | 'aborted';
  readonly seconds: number;
  /** Time from the abort request to the job having stopped. */
  readonly abortLatencyMs?: number;
  /** The job did not stop in time and its worker was terminated (a fresh one replaces it). */
  readonly killed?: boolean;
  /** The worker thread that ran it (the same id again: the thread was reused, not replaced). */
  readonly threadId: number;
}

export interface SubmitOptions<P> {
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: P) => void;
  /**
   * Whether the queue bounds apply: true for a single call's job; false for batch work (batches
   * pace themselves), which the fair queue also serves as the batch class.
   */
  readonly bounded?: boolean;
  /** The call the job belongs to (fair queueing: calls take turns); default: a flow of its own. */
  readonly flow?: string;
  /** The client connection the call came on, for maxQueuedPerPeer. */
  readonly peer?: string;
}
