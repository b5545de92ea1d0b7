import { describe, expect, it } from 'vitest';
import { longScenario, startHarness } from '../service/support/harness.js';
import { REDIS_URL, SKIP_REASON, cleanupsAfterAll, dropNamespace, eventually, freshNamespace, redisClient, spawnWorker } from './support.js';

if (!REDIS_URL) console.warn(`test/scaleout: skipped: ${SKIP_REASON}`);

/**
 * `batchwise worker` stops a cancelled batch's chunk mid-solve: it watches the batch's cancel
 * mark while the chunk runs and aborts the solve in hand, whose thread stops by itself. The
 * chunk holds one solve that runs for minutes (value iteration at 99.4 % load), so the worker
 * logging `chunk cancelled` with `during: "solve"` and `solve aborted` with `killed: false`
 * means it stopped that solve on the cancel, not at its end.
 */
describe.skipIf(!REDIS_URL)('batchwise worker and a cancelled batch', () => {
  const cleanups = cleanupsAfterAll();

  it('aborts the chunk’s running solve when the batch is cancelled; the thread is kept', async () => {
    const ns = freshNamespace();
    const worker = spawnWorker(ns, ['--log-level', 'debug']);
    const h = await startHarness({ limits: { maxConcurrentSolves: 1 }, redis: REDIS_URL, scaleout: { namespace: ns } });
    const redis = redisClient();
    cleanups.push(async () => {
      await worker.stop();
      await h.close();
      await dropNamespace(redis, ns);
      redis.disconnect();
    });
    await worker.ready;
    const controller = new AbortController();
    const call = (async () => {
      for await (const r of h.client().solveBatch({ list: { scenarios: [longScenario()] } }, { signal: controller.signal })) void r;
    })().catch((e: unknown) => e);
    const line = (msg: string) => worker.lines.find((l) => l.msg === msg);
    expect(await eventually(async () => line('chunk started') !== undefined, 60_000)).toBe(true);
    const cancelledAt = Date.now();
    controller.abort();
    await call;
    expect(await eventually(async () => line('chunk cancelled') !== undefined && line('solve aborted') !== undefined, 30_000)).toBe(true);
    expect(line('chunk cancelled')).toMatchObject({ during: 'solve', index: 0, chunk: 0 });
    expect(line('solve aborted')).toMatchObject({ kind: 'solve', killed: false });
    // Reported, not asserted: the cancel mark is polled every 250 ms.
    console.info(`worker left the chunk ${Number(line('chunk cancelled')!.time) - cancelledAt} ms after the client cancelled; solve stopped ${Number(line('solve aborted')!.abortLatencyMs).toFixed(1)} ms after its abort`);
  }, 180_000);
});
