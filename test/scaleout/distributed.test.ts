import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, sample } from '../service/support/harness.js';
import { SPEC_FIT } from '../helpers/scenarios.js';
import { answer, cheapBatch, cheapScenarios, collect } from './grid.js';
import { REDIS_URL, SKIP_REASON, dropNamespace, freshNamespace, redisClient, spawnWorker, type WorkerProcess } from './support.js';

if (!REDIS_URL) console.warn(`test/scaleout: skipped: ${SKIP_REASON}`);

/** 4 service laws × B ∈ {4, 8} × 10 loads (the last one unstable) × 5 latency × 5 power weights. */
const LOADS = 10;
const N = 2000;

describe.skipIf(!REDIS_URL)('SolveBatch through Redis and 3 worker processes', () => {
  const ns = freshNamespace();
  let local: Harness;
  let replicaA: Harness;
  let replicaB: Harness;
  let workers: WorkerProcess[] = [];

  beforeAll(async () => {
    workers = [0, 1, 2].map(() => spawnWorker(ns));
    [local, replicaA, replicaB] = await Promise.all([
      // The reference: an in-process server without Redis (its own pool and cache, no queue).
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

  it('a 2,000-scenario batch (4 service laws, 2 batch sizes, 25 weight pairs, 10 loads) equals the local result index by index, each index once; a second replica then answers it from the shared cache', async () => {
    const request = cheapBatch(LOADS, true);
    const scenarios = cheapScenarios(LOADS, true);
    expect(scenarios).toHaveLength(N);
    // The reference runs first, alone, so it cannot share anything with the distributed run.
    const inProcess = await collect(local.client(), request, 150_000);
    const remote = await collect(replicaA.client(), request, 150_000);
    expect(inProcess).toHaveLength(N);
    expect(remote).toHaveLength(N);
    expect(new Set(remote.map((r) => r.index)).size).toBe(N);
    expect(remote.every((r) => Number.isInteger(r.index) && r.index >= 0 && r.index < N)).toBe(true);
    const byIndex = new Map(inProcess.map((r) => [r.index, r]));
    let solved = 0;
    for (const r of remote) {
      const ref = byIndex.get(r.index)!;
      expect(answer(r), `index ${r.index}`).toEqual(answer(ref));
      expect(r.parameters).toEqual(ref.parameters);
      expect(r.cached, `index ${r.index}`).toBe(false); // solved by a worker, not a cache hit
      // Errors exactly at the unstable points (λ at or above B / l(B)), computed here from the inputs.
      const s = scenarios[r.index];
      const unstable = s.arrivalRate >= s.maxBatchSize / (SPEC_FIT.perItem * s.maxBatchSize + SPEC_FIT.base);
      expect(r.error !== undefined, `index ${r.index} unstable = ${unstable}`).toBe(unstable);
      if (r.result) solved++;
    }
    expect(solved).toBe(N - N / LOADS); // one load in ten is unstable
    // The service laws really differ: per law, the mean average cost of its solved scenarios.
    const costByLaw = new Map<string, number[]>();
    for (const r of remote) {
      if (!r.result) continue;
      const st = scenarios[r.index].serviceTime;
      const law = `${st.distribution}${st.cv ?? ''}`;
      costByLaw.set(law, [...(costByLaw.get(law) ?? []), r.result.averageCost]);
    }
    expect(costByLaw.size).toBe(4);
    expect(new Set([...costByLaw.values()].map((c) => (c.reduce((a, b) => a + b, 0) / c.length).toPrecision(6))).size).toBe(4);
    expect(remote.filter((r) => r.warmStarted).length).toBeGreaterThan(solved / 2); // chunks keep neighbours together

    // The work went to the worker processes, not replica A's own pool.
    expect(replicaA.jobEnds.filter((e) => e.kind === 'solve')).toHaveLength(0);
    const metrics = await (await fetch(`http://127.0.0.1:${replicaA.server.metricsPort}/metrics`)).text();
    expect(sample(metrics, 'batchwise_chunks_enqueued_total')).toBeGreaterThan(1);
    expect(sample(metrics, 'batchwise_queue_workers')).toBeGreaterThanOrEqual(3);
    expect(sample(metrics, 'batchwise_queue_depth', { state: 'waiting' })).toBe(0);
    expect(sample(metrics, 'batchwise_chunk_latency_seconds_count')).toBeGreaterThan(1);

    // Replica B has an empty local cache: the solved scenarios come from Redis, no solve anywhere.
    const again = await collect(replicaB.client(), request, 150_000);
    expect(again).toHaveLength(N);
    expect(new Set(again.map((r) => r.index)).size).toBe(N);
    const remoteByIndex = new Map(remote.map((r) => [r.index, r]));
    for (const r of again) {
      expect(answer(r)).toEqual(answer(remoteByIndex.get(r.index)!));
      if (r.result) expect(r.cached, `index ${r.index}`).toBe(true);
    }
    expect(replicaB.jobEnds.filter((e) => e.kind === 'solve')).toHaveLength(0);
  }, 400_000);
});
