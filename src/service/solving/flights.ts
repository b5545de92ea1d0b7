import { AbortError } from '../../model/errors.js';

/** One running solve that every caller with the same key follows. */
export interface Flight<R, P> {
  readonly controller: AbortController;
  readonly promise: Promise<R>;
  readonly listeners: Set<(p: P) => void>;
  /** The solve started from another solution (single-class warm starts). */
  readonly warmStarted: boolean;
  callers: number;
}

/**
 * Concurrent identical solves, shared: a caller joins the flight of its key if one is running (and
 * not aborted), else starts one; each follower gets the result and the progress while it stays;
 * the last to leave aborts the work. Single-class and multi-class solves each keep one.
 */
export class Flights<R, P> {
  private readonly map = new Map<string, Flight<R, P>>();

  get size(): number {
    return this.map.size;
  }

  /** The running, not aborted flight of `key`, if any. */
  running(key: string): Flight<R, P> | undefined {
    const f = this.map.get(key);
    return f && !f.controller.signal.aborted ? f : undefined;
  }

  /** Starts `run` as the flight of `key`; it leaves the map when it settles. */
  start(key: string, run: (signal: AbortSignal, onProgress: (p: P) => void) => Promise<R>, warmStarted = false): Flight<R, P> {
    const controller = new AbortController();
    const listeners = new Set<(p: P) => void>();
    const promise = run(controller.signal, (p) => listeners.forEach((l) => l(p))).finally(() => {
      if (this.map.get(key) === flight) this.map.delete(key);
    });
    promise.catch(() => undefined); // callers observe it; an abandoned flight must not be "unhandled"
    const flight: Flight<R, P> = { controller, promise, listeners, warmStarted, callers: 0 };
    this.map.set(key, flight);
    return flight;
  }

  /** Waits for the flight's result as one of its callers, with this caller's signal and progress. */
  async follow(flight: Flight<R, P>, signal: AbortSignal, onProgress?: (p: P) => void): Promise<R> {
    flight.callers++;
    if (onProgress) flight.listeners.add(onProgress);
    let onAbort: (() => void) | undefined;
    try {
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new AbortError());
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
      return await Promise.race([flight.promise, aborted]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
      if (onProgress) flight.listeners.delete(onProgress);
      // The last caller to leave stops the work; the pool frees its worker.
      if (--flight.callers === 0 && signal.aborted) flight.controller.abort(signal.reason);
    }
  }
}
