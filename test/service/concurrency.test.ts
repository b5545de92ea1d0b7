import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { comparable, sample, startHarness, type Harness } from './support/harness.js';

describe('20 concurrent clients', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 2 }, metricsPort: 0 });
  });
  afterAll(async () => h?.close());

  it('each gets the correct result; identical requests are solved once (shared or cached)', async () => {
    // 10 distinct scenarios, each asked by two clients on their own channels, all at once.
    const distinct = Array.from({ length: 10 }, (_, i) => specScenario(400 + 400 * i, i % 2 ? 1e-3 : 1e-4));
    const asks = [...distinct, ...distinct];
    const clients = asks.map(() => h.client());
    const answers = await Promise.all(asks.map((s, i) => clients[i].solve(s)));
    const references = await Promise.all(distinct.map((s) => solveScenario(s)));
    answers.forEach((a, i) => {
      const ref = references[i % 10];
      // Warm starts may pick another optimal policy only on exact ties; the cost is the same.
      expect(Math.abs(a.result.averageCost - ref.averageCost) / ref.averageCost).toBeLessThan(1e-9);
      expect(a.result.policy.controlLimit).toBe(ref.policy.controlLimit);
      if (!a.warmStarted) expect(comparable(a.result)).toEqual(comparable(ref));
    });
    const metrics = await fetch(`http://127.0.0.1:${h.server.metricsPort}/metrics`).then((r) => r.text());
    expect(sample(metrics, 'batchwise_solves_total', { backend: 'cpu' })).toBe(10);
    const shared = sample(metrics, 'batchwise_shared_solves_total') ?? 0;
    const hits = sample(metrics, 'batchwise_cache_hits_total') ?? 0;
    expect(shared + hits).toBe(10);
    expect(sample(metrics, 'grpc_server_handled_total', { grpc_method: 'Solve', grpc_code: 'OK' })).toBe(20);
    expect(answers.filter((a) => a.cached).length).toBe(hits);
  });
});
