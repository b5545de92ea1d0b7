import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { BatchwiseClient, RemoteError } from '../../src/service/client.js';
import { solveResultFromProto } from '../../src/service/convert/result.js';
import type { SolveResult } from '../../src/solve/result.js';
import { evaluateScenarioPolicy } from '../../src/solve/evaluateScenario.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { comparable, startHarness, type Harness } from './support/harness.js';

describe('Solve and Evaluate over gRPC (real server on 127.0.0.1:0)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 2, maxBatchSize: 64, maxStates: 5000, maxMessageBytes: 64 * 1024 } });
  });
  afterAll(async () => h?.close());

  // Value iteration: hundreds of sweeps, so there is progress to stream.
  const vi = { ...specScenario(2000, 1e-4), solver: { method: 'VALUE_ITERATION' as const } };
  let local: SolveResult;

  it('streams progress at a bounded rate, then one final update equal to the in-process result', async () => {
    const client = h.client();
    const updates: Array<{ done: boolean; at: number }> = [];
    const progress: Array<{ iteration: number; lower: number; upper: number; S: number; limit: number; actions: number }> = [];
    const started = performance.now();
    let final: unknown;
    for await (const u of client.solveUpdates({ scenario: vi, progressIntervalMs: 0 })) {
      updates.push({ done: u.done, at: performance.now() });
      if (u.progress) {
        const p = u.progress;
        progress.push({ iteration: p.iteration, lower: p.averageCostLower, upper: p.averageCostUpper, S: p.maxQueue, limit: p.controlLimit, actions: p.policy!.actions.length });
      }
      if (u.done) final = u.result;
    }
    const elapsed = performance.now() - started;
    local = await solveScenario(vi);

    expect(updates.filter((u) => u.done)).toHaveLength(1);
    expect(updates[updates.length - 1].done).toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    // At most one progress update per 100 ms (the default) over the call, plus the first.
    expect(progress.length).toBeLessThanOrEqual(Math.floor(elapsed / 100) + 1);
    for (let i = 0; i < progress.length; i++) {
      const p = progress[i];
      expect(p.lower).toBeLessThanOrEqual(p.upper);
      expect(p.actions).toBe(p.S + 1);
      if (i > 0 && progress[i - 1].S === p.S) expect(p.iteration).toBeGreaterThan(progress[i - 1].iteration);
      // Odoni bounds bracket the optimum of the truncated model being solved.
      if (p.S === local.solver.maxQueue) {
        expect(p.lower).toBeLessThanOrEqual(local.averageCostUpper * (1 + 1e-12));
        expect(p.upper).toBeGreaterThanOrEqual(local.averageCostLower * (1 - 1e-12));
      }
    }
    expect(comparable(solveResultFromProto(final))).toEqual(comparable(local));
    expect(local.solver.method).toBe('value-iteration');
  });

  it('answers the same scenario again from the cache, spelled differently', async () => {
    const reordered = { solver: { method: 'VALUE_ITERATION', tolerance: 0 }, objective: vi.objective, power: vi.power, serviceTime: vi.serviceTime, maxBatchSize: 32, arrivalRate: 2000 };
    const r = await h.client().solve(reordered);
    expect(r.cached).toBe(true);
    expect(r.progressUpdates).toBe(0);
    expect(comparable(r.result)).toEqual(comparable(local));
  });

  it('a solve whose tail check fails says so, fresh and from the cache alike', async () => {
    const small = { ...specScenario(4000, 1e-3), solver: { maxQueue: 12 } };
    const fresh = await h.client().solve(small);
    const again = await h.client().solve(small);
    expect([fresh.cached, again.cached]).toEqual([false, true]);
    expect(fresh.result.solver.stopReason).toBe('tail-mass');
    expect(comparable(again.result)).toEqual(comparable(fresh.result));
    expect(comparable(fresh.result)).toEqual(comparable(await solveScenario(small)));
  });

  it('a spec-table scenario solved remotely has the reference g* (docs/model.md §6)', async () => {
    const r = await h.client().solve(specScenario(4000, 1e-3));
    expect(Math.abs(r.result.averageCost - 0.142151425903) / 0.142151425903).toBeLessThan(1e-9);
    expect(r.result.policy.controlLimit).toBe(11);
  });

  it('refuses invalid scenarios with INVALID_ARGUMENT naming the field path', async () => {
    const client = h.client();
    const tooFast = client.solve({ ...specScenario(4000, 1e-4), arrivalRate: 9000 });
    await expect(tooFast).rejects.toBeInstanceOf(ScenarioError);
    await expect(tooFast).rejects.toMatchObject({ field: 'scenario.arrivalRate' });
    await expect(client.solve({ ...specScenario(4000, 1e-4), serviceTime: { linear: { perItem: 1e-4, base: 1e-3 }, distribution: 'GAMMA' } })).rejects.toMatchObject({
      field: 'scenario.serviceTime.cv',
    });
    await expect(client.solve(undefined)).rejects.toMatchObject({ field: 'scenario' });
  });

  it('enforces the named limits: max batch size, max states (explicit S and automatic S)', async () => {
    const client = h.client();
    await expect(client.solve({ ...specScenario(100, 1e-4), maxBatchSize: 128 })).rejects.toMatchObject({
      field: 'scenario.maxBatchSize',
      reason: expect.stringMatching(/maxBatchSize limit 64/),
    });
    await expect(client.solve({ ...specScenario(1000, 1e-4), solver: { maxQueue: 6000 } })).rejects.toMatchObject({
      field: 'scenario.solver.maxQueue',
      reason: expect.stringMatching(/maxStates limit 5000/),
    });
    // Near capacity the automatic S grows past 5000 states: stopped, and named, with an estimate of the rate that fits.
    const near = (await client.solve(specScenario(4925, 1e-4)).then(
      () => undefined,
      (x: unknown) => x,
    )) as { field: string; reason: string };
    expect(near).toMatchObject({ field: 'scenario.arrivalRate', reason: expect.stringMatching(/maxStates = 5000.*; an arrivalRate up to about \d[\d.e+]* \/s .* would fit/) });
    const estimate = Number(/up to about (\S+) \/s/.exec(near.reason)![1]);
    expect(estimate).toBeGreaterThan(4000);
    expect(estimate).toBeLessThan(4925);
  });

  it('refuses a request larger than maxMessageBytes (RESOURCE_EXHAUSTED) before decoding it', async () => {
    const huge = { ...specScenario(100, 1e-4), maxBatchSize: 10_000, serviceTime: { table: { values: Array.from({ length: 10_000 }, (_, i) => 1e-3 + i * 1e-6) } } };
    const e = await h.client().solve(huge).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RemoteError);
    expect((e as RemoteError).codeName).toBe('RESOURCE_EXHAUSTED');
    expect(h.server.pool.stats().busy).toBe(0);
  });

  it('Evaluate equals the in-process evaluation, for a spec string and for a table', async () => {
    const client = h.client();
    const s = specScenario(2000, 1e-4);
    const spec = await client.evaluate(s, 'control-limit:6');
    expect(spec).toEqual(evaluateScenarioPolicy(s, 'control-limit:6'));
    const table = await client.evaluate(s, [0, 0, 0, 3, 4, 5]);
    expect(table).toEqual(evaluateScenarioPolicy(s, { actions: Int32Array.of(0, 0, 0, 3, 4, 5), tailBatch: 32 }));
    await expect(client.evaluate(s, 'static:99')).rejects.toMatchObject({ field: 'policy.spec' });
    await expect(client.evaluate(s, [0, 2])).rejects.toMatchObject({ field: 'policy.table.actions[1]' });
  });

  it('writes one log line per RPC with method, status, duration and size, under the caller request id', async () => {
    await h.client().solve(specScenario(3000, 1e-4), { requestId: 'req-42' });
    await expect(h.client().solve({ ...specScenario(3000, 1e-4), arrivalRate: -1 }, { requestId: 'req-43' })).rejects.toBeInstanceOf(ScenarioError);
    const ok = h.lines.filter((l) => l.requestId === 'req-42');
    const bad = h.lines.filter((l) => l.requestId === 'req-43');
    expect(ok).toHaveLength(1);
    expect(ok[0]).toMatchObject({ rpc: 'Solve', code: 'OK', maxBatchSize: 32, cached: false, backend: 'cpu' });
    expect(ok[0].states).toBeGreaterThan(32);
    expect(typeof ok[0].durationMs).toBe('number');
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ rpc: 'Solve', code: 'INVALID_ARGUMENT' });
    expect(String(bad[0].details)).toMatch(/^scenario\.arrivalRate: /);
  });

  it('errors that are not the caller’s surface as a RemoteError with the status name', async () => {
    const dead = new BatchwiseClient('127.0.0.1:1');
    const e = await dead.evaluate(specScenario(100, 1e-4), 'greedy', { deadline: Date.now() + 5000 }).catch((x: unknown) => x);
    dead.close();
    expect(e).toBeInstanceOf(RemoteError);
    expect(['UNAVAILABLE', 'DEADLINE_EXCEEDED']).toContain((e as RemoteError).codeName);
  });
});
