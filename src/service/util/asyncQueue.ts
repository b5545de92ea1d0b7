/**
 * A queue with many producers and one async-iterating consumer. Items wait in memory until
 * read; producers here are bounded by design (one item per finished scenario).
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private closed = false;
  private failure: { error: unknown } | undefined;
  private waiter: (() => void) | undefined;

  push(item: T): void {
    if (this.closed) return;
    this.items.push(item);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  fail(error: unknown): void {
    this.failure ??= { error };
    this.close();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift()!;
        continue;
      }
      if (this.failure) throw this.failure.error;
      if (this.closed) return;
      await new Promise<void>((r) => (this.waiter = r));
    }
  }
}

/** Interleaves several async iterables, yielding items as they come. */
export async function* mergeAsync<T>(sources: ReadonlyArray<AsyncIterable<T>>): AsyncGenerator<T, void, undefined> {
  const q = new AsyncQueue<T>();
  let open = sources.length;
  if (open === 0) return;
  for (const src of sources) {
    void (async () => {
      try {
        for await (const item of src) q.push(item);
        if (--open === 0) q.close();
      } catch (e) {
        q.fail(e);
      }
    })();
  }
  yield* q;
}
