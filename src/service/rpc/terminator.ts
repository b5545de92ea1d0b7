import { serverShuttingDown } from './status.js';

/**
 * The terminator pattern: running calls register their abort controller; `terminate()`
 * aborts them all with UNAVAILABLE ("Server shutting down") so they end cleanly instead of
 * being cut off by a forced close, and calls that arrive afterwards are aborted at once.
 */
export class Terminator {
  private readonly active = new Set<AbortController>();
  private terminated = false;
  private readonly idleWaiters: Array<() => void> = [];

  get size(): number {
    return this.active.size;
  }

  get isTerminated(): boolean {
    return this.terminated;
  }

  register(controller: AbortController): () => void {
    if (this.terminated) controller.abort(serverShuttingDown());
    this.active.add(controller);
    return () => {
      this.active.delete(controller);
      if (this.active.size === 0) this.idleWaiters.splice(0).forEach((w) => w());
    };
  }

  /** Resolves when no call is running. */
  idle(): Promise<void> {
    if (this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  terminate(): void {
    this.terminated = true;
    for (const c of this.active) c.abort(serverShuttingDown());
  }
}
