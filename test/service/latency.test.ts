import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cheapScenario, expectPercentilesOf } from '../helpers/latency.js';
import { specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from './support/harness.js';

describe('Solve, SolveBatch and Evaluate carry the percentiles (real server on 127.0.0.1:0)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 2, maxBatchSize: 64, maxStates: 5000, maxMessageBytes: 256 * 1024 } });
  });
  afterAll(async () => h?.close());

  it('Solve: equal to a direct responseTimeDistribution; skip_percentiles leaves them out, and a later call gets them filled in from the cache', async () => {
    const s = cheapScenario(250);
    const skipped = await h.client().solve(s, { skipPercentiles: true });
    expect(skipped.cached).toBe(false);
    expect(skipped.result.latency).toBeUndefined();
    expect(skipped.result.latencyUnavailable).toBeUndefined();
    const again = await h.client().solve(s);
    expect(again.cached).toBe(true);
    expectPercentilesOf(s, again.result);
    const third = await h.client().solve(s, { skipPercentiles: true });
    expect(third.result.latency).toBeUndefined();
  });

  it('Solve of a docs/model.md §6 row (B = 32, deterministic): the exact mixture’s figures', async () => {
    const s = specScenario(1500, 0);
    const r = await h.client().solve(s);
    expectPercentilesOf(s, r.result);
    expect(r.result.latency!.method).toBe('mixture');
  });

  it('Solve with random service past the transform route’s cost guard: the reason, no figures', async () => {
    const s = specScenario(2000, 1e-4, { serviceTime: { linear: { perItem: 0.1438e-3, base: 1.8874e-3 }, distribution: 'GAMMA', cv: 0.7 } });
    const r = await h.client().solve(s);
    expect(r.result.latency).toBeUndefined();
    expect(r.result.latencyUnavailable).toMatch(/too long/);
  });

  it('Evaluate: the same, and skip_percentiles', async () => {
    const s = cheapScenario(300, 4);
    expectPercentilesOf(s, await h.client().evaluate(s, 'static:2'), 'static:2');
    const skipped = await h.client().evaluate(s, 'static:2', { skipPercentiles: true });
    expect(skipped.latency).toBeUndefined();
    expect(skipped.latencyUnavailable).toBeUndefined();
  });

  it('SolveBatch: each scenario result has them; skip_percentiles leaves them out of every one', async () => {
    const grid = { base: cheapScenario(), arrivalRate: [200, 300] };
    const results = [];
    for await (const r of h.client().solveBatch({ grid })) results.push(r);
    expect(results).toHaveLength(2);
    for (const r of results) expectPercentilesOf(cheapScenario(r.parameters.arrivalRate), r.result!);
    const skipped = [];
    for await (const r of h.client().solveBatch({ grid, skipPercentiles: true })) skipped.push(r);
    expect(skipped.map((r) => r.result!.latency)).toEqual([undefined, undefined]);
  });
});
