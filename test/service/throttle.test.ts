import { describe, expect, it } from 'vitest';
import { throttled } from '../../src/service/solving/throttle.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('throttled', () => {
  it('a burst of progress within one interval yields at most the first, then exactly one result', async () => {
    const items = await collect(
      throttled<number, string>(async (emit) => {
        for (let i = 1; i <= 1000; i++) emit(i);
        return 'done';
      }, 60_000),
    );
    expect(items.filter((x) => 'result' in x)).toEqual([{ result: 'done' }]);
    expect(items[items.length - 1]).toEqual({ result: 'done' });
    expect(items.filter((x) => 'progress' in x).length).toBeLessThanOrEqual(1);
  });

  it('sends the newest progress, not a stale one', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const gen = throttled<number, string>(async (emit) => {
      emit(1);
      emit(2);
      emit(3);
      await gate;
      return 'ok';
    }, 0);
    const first = await gen.next();
    expect(first.value).toEqual({ progress: 3 });
    release();
    expect((await gen.next()).value).toEqual({ result: 'ok' });
    expect((await gen.next()).done).toBe(true);
  });

  it('a failing task throws after its progress', async () => {
    const gen = throttled<number, string>(async () => {
      throw new Error('boom');
    }, 10);
    await expect(collect(gen)).rejects.toThrow('boom');
  });
});
