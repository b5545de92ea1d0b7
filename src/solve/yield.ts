import { setImmediate as nextTurn } from 'node:timers/promises';
import { throwIfAborted } from '../model/errors.js';

/**
 * Lets a long synchronous loop give the event loop a turn every `sliceMs`, so that an
 * AbortSignal fired by a cancelled call or a deadline is seen within that slice.
 */
export class Yielder {
  private last = performance.now();
  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly sliceMs = 20,
  ) {}

  async check(): Promise<void> {
    throwIfAborted(this.signal);
    const now = performance.now();
    if (now - this.last >= this.sliceMs) {
      await nextTurn();
      this.last = performance.now();
      throwIfAborted(this.signal);
    }
  }
}
