import { Metadata, status, type CallOptions, type ServiceError } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteError } from '../../src/service/client.js';
import type { ScenarioResult } from '../../src/service/messages.js';
import { rejectionOf } from '../helpers/rejection.js';
import { specScenario } from '../helpers/scenarios.js';
import { longScenario, startHarness, type Harness } from './support/harness.js';

const failure = (p: Promise<unknown>): Promise<RemoteError> => rejectionOf(p, RemoteError);

async function drain(it: AsyncIterable<ScenarioResult>, into: ScenarioResult[] = []): Promise<ScenarioResult[]> {
  for await (const r of it) into.push(r);
  return into;
}

describe('work limits, checked before the work starts (docs/service.md, Limits)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('maxWorkPerCall: a solve or a batch over the estimated work is refused RESOURCE_EXHAUSTED naming the bound, and nothing is solved', async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1, maxWorkPerCall: 4e5 } });
    // Explicit S = 50,000: 50,001 states × a band of 62.
    const big = { ...specScenario(2000, 1e-4), solver: { maxQueue: 50_000 } };
    const single = await failure(h.client().solve(big));
    expect(single.codeName).toBe('RESOURCE_EXHAUSTED');
    expect(single.field).toBe('scenario');
    expect(single.details).toMatch(/^scenario: the solve needs an estimated 3\.\d+e\+6 chain entries .*maxWorkPerCall = 4\.000e\+5$/);
    // 300 points of about 2,500 band entries each. Refused as a whole, before any result.
    const grid = { base: specScenario(1000, 1e-4), arrivalRate: Array.from({ length: 30 }, (_, i) => 100 * (i + 1)), powerWeight: Array.from({ length: 10 }, (_, i) => 1e-5 * (i + 1)) };
    const got: ScenarioResult[] = [];
    const batch = await failure(drain(h.client().solveBatch({ grid }), got));
    expect(batch.codeName).toBe('RESOURCE_EXHAUSTED');
    expect(batch.field).toBe('grid');
    expect(batch.details).toMatch(/^grid: its 300 scenarios to solve need an estimated .* chain entries \(states × band width, or for one phase with exponential service the geometric reduction’s about 3B a state, summed over the scenarios\), above this server's maxWorkPerCall/);
    expect(got).toEqual([]);
    expect(h.jobEnds.filter((e) => e.kind === 'solve')).toEqual([]);
    // A tenth of it passes.
    const small = await drain(h.client().solveBatch({ grid: { ...grid, arrivalRate: grid.arrivalRate.slice(0, 3) } }));
    expect(small).toHaveLength(30);
    const line = h.lines.filter((l) => l.rpc === 'SolveBatch').pop();
    expect(line).toMatchObject({ code: 'OK', scenarios: 30 });
    console.info(`estimated work: 300-point grid refused, 30-point grid ${String(line!.estimatedWork)} band entries`);
  });

  it('maxWorkPerCall: Evaluate, Simulate of the optimal policy and the planning RPCs are checked on the model they build', async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1, maxWorkPerCall: 1e5 } });
    type Unary = (req: unknown, md: Metadata, opts: CallOptions, cb: (e: ServiceError | null, r?: unknown) => void) => void;
    const client = h.client();
    const raw = client.raw as unknown as Record<string, Unary>;
    const call = (m: string, req: unknown): Promise<ServiceError | null> =>
      new Promise((resolve) => raw[m].call(client.raw, req, new Metadata(), {}, (e) => resolve(e)));
    // At 99.3 % load the automatic S is estimated at thousands of states: ~1.6e5 band entries.
    const near = specScenario(4900, 1e-4);
    const evaluate = await failure(client.evaluate(near, 'control-limit:3'));
    expect(evaluate.codeName).toBe('RESOURCE_EXHAUSTED');
    expect(evaluate.details).toMatch(/^scenario: the evaluation needs an estimated 1\.\d+e\+5 chain entries .*maxWorkPerCall = 1\.000e\+5$/);
    for (const [m, req, what] of [
      ['Simulate', { scenario: near, policy: 'optimal' }, 'the solve for the optimal policy needs'],
      ['Plan', { scenario: near, latencyTarget: 0.05 }, 'each of its solves needs'],
      ['Frontier', { scenario: near }, 'each of its solves needs'],
      ['Export', { scenario: near, target: 'triton' }, 'each of its solves needs'],
    ] as const) {
      const e = await call(m, req);
      expect(e?.code, m).toBe(status.RESOURCE_EXHAUSTED);
      expect(e?.metadata.get('batchwise-field')[0], m).toBe('scenario');
      expect(e?.details, m).toContain(`scenario: ${what} an estimated`);
    }
    // Nothing was started, and the same calls at a lighter load pass.
    expect(h.jobEnds).toEqual([]);
    expect(await call('Simulate', { scenario: specScenario(2000, 1e-4), policy: 'optimal', requests: 2000 })).toBeNull();
    expect((await client.evaluate(specScenario(2000, 1e-4), 'control-limit:3')).averageCost).toBeGreaterThan(0);
  });

  it('maxQueuedPerPeer: a client connection with that many calls waiting is refused, another connection is not', async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1, maxQueuedSolves: 64, maxQueuedPerPeer: 2 } });
    const a = h.client();
    const controller = new AbortController();
    const opened = [0, 1, 2].map((i) => a.solve({ ...longScenario(), arrivalRate: 4900 - i }, { signal: controller.signal }).catch((e: unknown) => e));
    // One runs, two wait.
    while (h.server.pool.stats().queued < 2) await new Promise((r) => setTimeout(r, 10));
    const refused = await failure(a.solve({ ...longScenario(), arrivalRate: 4880 }));
    expect(refused.codeName).toBe('RESOURCE_EXHAUSTED');
    expect(refused.details).toMatch(/^peer \S+ already has 2 calls waiting for a solver worker \(maxQueuedPerPeer = 2\)/);
    // Another connection (other channel options: grpc-js opens a connection of its own) still queues.
    const b = h.client({ maxMessageBytes: 32 * 1024 * 1024 });
    const other = b.solve({ ...longScenario(), arrivalRate: 4870 }, { signal: controller.signal }).catch((e: unknown) => e);
    while (h.server.pool.stats().queued < 3) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await Promise.all([...opened, other]);
  });

  it('fair queueing: single calls are served while batches hold every worker, and are not refused for the batches’ queued work', async () => {
    // One worker, a single-call queue bound of 4, and two batches (each keeps a job waiting).
    h = await startHarness({ limits: { maxConcurrentSolves: 1, maxQueuedSolves: 4 } });
    const sweep = (w: number) => ({ grid: { base: specScenario(1000, w), arrivalRate: Array.from({ length: 30 }, (_, i) => 150 * (i + 1)) } });
    const events: string[] = [];
    let started!: () => void;
    const bothRunning = new Promise<void>((r) => (started = r));
    const firsts = new Set<number>();
    const batches = [1e-4, 2e-4].map((w, b) =>
      (async () => {
        for await (const r of h!.client().solveBatch(sweep(w))) {
          void r;
          events.push(`batch${b}`);
          firsts.add(b);
          if (firsts.size === 2) started();
        }
        events.push(`batch${b} done`);
      })(),
    );
    await bothRunning;
    const singles = Array.from({ length: 4 }, (_, i) =>
      h!
        .client()
        .solve(specScenario(1234 + i, 3e-4))
        .then(() => events.push(`single${i}`)),
    );
    await Promise.all(singles);
    const lastSingle = Math.max(...[0, 1, 2, 3].map((i) => events.indexOf(`single${i}`)));
    const firstSingle = Math.min(...[0, 1, 2, 3].map((i) => events.indexOf(`single${i}`)));
    await Promise.all(batches);
    // Every single call finished while both batches were still running...
    expect(lastSingle).toBeLessThan(events.indexOf('batch0 done'));
    expect(lastSingle).toBeLessThan(events.indexOf('batch1 done'));
    // ...taking every other turn of the one worker: between the first and the last single, at most one batch solve per single.
    const between = events.slice(firstSingle, lastSingle).filter((e) => e.startsWith('batch')).length;
    console.info(`4 single calls finished with ${between} batch results between the first and the last; ${events.filter((e) => e.startsWith('batch') && !e.endsWith('done')).length} batch results in all`);
    expect(between).toBeLessThanOrEqual(4);
  });
});
