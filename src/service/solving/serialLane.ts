import { AbortError } from '../../model/errors.js';

/** Runs tasks one after another; a task whose signal fires while it waits is dropped. */
export class SerialLane {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const start = this.tail.then(() => {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new AbortError();
      return task();
    });
    this.tail = start.catch(() => undefined);
    return start;
  }
}
