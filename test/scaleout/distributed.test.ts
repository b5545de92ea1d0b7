import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, sample } from '../service/support/harness.js';
import { answer, collect, testGrid } from './grid.js';
import { REDIS_URL, SKIP_REASON, dropNamespace, freshNamespace, redisClient, spawnWorker, type WorkerProcess } from './support.js';

if (!REDIS_URL) console.warn(`test/scaleout: skipped: ${SKIP_REASON}`);

describe.skipIf(!REDIS_URL)('SolveBatch through Redis and 3 worker processes', () => {
  const ns = freshNamespace();
  let local: Harness;
  let replicaA: Harness;
  let replicaB: Harness;
  let workers: WorkerProcess[] = [];

  beforeAll(async () => {
    workers = [0, 1, 2].map(() => spawnWorker(ns));
    [local, replicaA, replicaB] = await Promise.all([
      startHarness({ limits: { maxConcurrentSolves: 1 } }),
      startHarness({ limits: { maxConcurrentSolves: 1 }, redis: REDIS_URL, scaleout: { namespace: ns }, metricsPort: 0 }),
      startHarness({ limits: { maxConcurrentSolves: 1 }, redis: REDIS_URL, scaleout: { namespace: ns } }),
    ]);
    await Promise.all(workers.map((w) => w.ready));
  }, 150_000); // worker processes start from sources (tsx); slow on a loaded machine

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all([local, replicaA, replicaB].map((h) => h?.close()));
    const r = redisClient();
    await dropNamespace(r, ns);
    r.disconnect();
  }, 60_000);

  it('a 400-scenario grid equals the local result index by index, each index once; a second replica then answers it from the shared cache', async () => {
    const request = testGrid();
    const [remote, inProcess] = await Promise.all([collect(replicaA.client(), request), collect(local.client(), request)]);
    const n = 400;
    expect(remote).toHaveLength(n);
    expect(new Set(remote.map((r) => r.index)).size).toBe(n);
    const byIndex = new Map(inProcess.map((r) => [r.index, r]));
    let solved = 0;
    for (const r of remote) {
      expect(answer(r), `index ${r.index}`).toEqual(answer(byIndex.get(r.index)!));
      expect(r.parameters).toEqual(byIndex.get(r.index)!.parameters);
      if (r.result) solved++;
    }
    expect(solved).toBeGreaterThan(300); // the grid has some unstable points (errors in place), most are solved
    expect(remote.filter((r) => r.warmStarted).length).toBeGreaterThan(solved / 2); // chunks keep neighbours together

    // The work went to the worker processes, not replica A's own pool.
    expect(replicaA.jobEnds.filter((e) => e.kind === 'solve')).toHaveLength(0);
    const metrics = await (await fetch(`http://127.0.0.1:${replicaA.server.metricsPort}/metrics`)).text();
    expect(sample(metrics, 'batchwise_chunks_enqueued_total')).toBeGreaterThan(1);
    expect(sample(metrics, 'batchwise_queue_workers')).toBeGreaterThanOrEqual(3);
    expect(sample(metrics, 'batchwise_queue_depth', { state: 'waiting' })).toBe(0);
    expect(sample(metrics, 'batchwise_chunk_latency_seconds_count')).toBeGreaterThan(1);

    // Replica B has an empty local cache: the solved scenarios come from Redis, no solve anywhere.
    const again = await collect(replicaB.client(), request);
    expect(again).toHaveLength(n);
    const remoteByIndex = new Map(remote.map((r) => [r.index, r]));
    for (const r of again) {
      expect(answer(r)).toEqual(answer(remoteByIndex.get(r.index)!));
      if (r.result) expect(r.cached, `index ${r.index}`).toBe(true);
    }
    expect(replicaB.jobEnds.filter((e) => e.kind === 'solve')).toHaveLength(0);
  }, 240_000);
});
