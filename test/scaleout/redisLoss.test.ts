import { describe, expect, it } from 'vitest';
import { RemoteError } from '../../src/service/client.js';
import type { ScenarioResult } from '../../src/service/messages.js';
import { startHarness, type Harness } from '../service/support/harness.js';
import { testGrid } from './grid.js';
import { REDIS_URL, SKIP_REASON, cleanupsAfterAll, freshNamespace, privateRedis, spawnWorker, type PrivateRedis, type WorkerProcess } from './support.js';

if (!REDIS_URL) console.warn(`test/scaleout: skipped: ${SKIP_REASON}`);

/**
 * A Redis lost mid-batch ends the call UNAVAILABLE (docs/scaleout.md, "A lost Redis"): the
 * test runs its own redis-server, kills it once results flow, and either starts it again
 * empty (a crash without persistence: the queue, the batch's keys and its results are gone)
 * or leaves it down. The call's deadline is far off, so ending DEADLINE_EXCEEDED would mean
 * it hung; it must end UNAVAILABLE, with every result received before that one of a kind.
 */
describe.skipIf(!REDIS_URL)('a lost Redis ends the batch with UNAVAILABLE', () => {
  const cleanups = cleanupsAfterAll();

  async function setup(): Promise<{ redis: PrivateRedis; h: Harness; worker: WorkerProcess }> {
    const redis = await privateRedis();
    const ns = freshNamespace();
    const worker = spawnWorker(ns, ['--lock-ms', '3000'], redis.url);
    const h = await startHarness({ limits: { maxConcurrentSolves: 1 }, redis: redis.url, scaleout: { namespace: ns, chunkSize: 10, timeoutMs: 1500 } });
    cleanups.push(async () => {
      await worker.stop();
      await h.close();
      await redis.kill();
    });
    await worker.ready;
    return { redis, h, worker };
  }

  async function runCut(h: Harness, cut: () => Promise<void>): Promise<{ seen: ScenarioResult[]; cutAt: number; error: unknown }> {
    const seen: ScenarioResult[] = [];
    let cutAt = -1;
    let error: unknown;
    try {
      for await (const r of h.client().solveBatch(testGrid(), { deadline: Date.now() + 150_000 })) {
        seen.push(r);
        if (cutAt < 0 && seen.length >= 40) {
          cutAt = seen.length;
          await cut();
        }
      }
    } catch (e) {
      error = e;
    }
    return { seen, cutAt, error };
  }

  it('Redis restarted empty mid-batch: UNAVAILABLE naming the loss, never a hang until the deadline', async () => {
    const { redis, h } = await setup();
    const { seen, cutAt, error } = await runCut(h, async () => {
      await redis.kill();
      await redis.start();
    });
    expect(cutAt).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(RemoteError);
    expect((error as RemoteError).codeName).toBe('UNAVAILABLE');
    expect((error as RemoteError).details).toMatch(/Redis (lost|unreachable)/);
    expect(seen.length).toBeLessThan(400);
    expect(new Set(seen.map((r) => r.index)).size).toBe(seen.length);
    const line = h.lines.find((l) => l.rpc === 'SolveBatch' && l.msg === 'rpc finished');
    expect(line).toMatchObject({ code: 'UNAVAILABLE', sent: seen.length, unanswered: 400 - seen.length });
    console.info(`Redis restarted empty after ${cutAt} results: ${seen.length} of 400 received, then ${(error as RemoteError).details}`);
  }, 240_000);

  it('Redis killed mid-batch and left down: UNAVAILABLE', async () => {
    const { redis, h } = await setup();
    const { seen, cutAt, error } = await runCut(h, () => redis.kill());
    expect(cutAt).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(RemoteError);
    expect((error as RemoteError).codeName).toBe('UNAVAILABLE');
    expect((error as RemoteError).details).toMatch(/Redis unreachable/);
    expect(new Set(seen.map((r) => r.index)).size).toBe(seen.length);
  }, 240_000);
});
