import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceFitCounts } from '../../src/fit/fitCache.js';
import { openBatch } from '../../src/service/batch/expand.js';
import { prepareScenarios } from '../../src/service/batch/prepare.js';
import { DEFAULT_LIMITS } from '../../src/service/config.js';
import type { ScenarioResult } from '../../src/service/messages.js';
import { rng } from '../helpers/random.js';
import { specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from './support/harness.js';

type Check = (req: { service: string }, cb: (e: grpc.ServiceError | null, r?: { status: string }) => void) => void;

function healthClient(address: string): { check: () => Promise<string>; close: () => void } {
  const def = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { enums: String })) as unknown as {
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  const client = new def.grpc.health.v1.Health(address, grpc.credentials.createInsecure());
  const check = (client as unknown as { Check: Check }).Check.bind(client);
  return {
    check: () => new Promise((resolve, reject) => check({ service: 'batchwise.v1.BatchingPolicy' }, (e, r) => (e ? reject(e) : resolve(r!.status)))),
    close: () => client.close(),
  };
}

/**
 * A bursty trace (rate 400 /s and 100 /s in turns of 100 arrivals), different for each seed:
 * each one is a fit of its own. A fit costs about the same whatever the length (it works on
 * window counts at 14 scales), so short traces keep the request small: its transfer is not
 * what the health checks below run during.
 */
function trace(seed: number, n = 2000): number[] {
  const r = rng(seed);
  const out: number[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    const rate = Math.floor(i / 100) % 2 === 0 ? 400 : 100;
    t += -Math.log(1 - r()) / rate;
    out.push(t);
  }
  return out;
}

function traceScenario(timestamps: number[]): Record<string, unknown> {
  // B = 4 at a fifth of capacity: a solve of milliseconds, so the first result follows the validation closely.
  const s = { ...specScenario(0, 1e-4), maxBatchSize: 4, arrivalProcess: { trace: { timestamps } } } as Record<string, unknown>;
  delete s.arrivalRate; // the trace's mean rate
  return s;
}

/**
 * Validating a batch entry can be heavy: a trace is fitted (~0.3 s here). That
 * work runs on the pool, so the main thread keeps answering health checks (and cancels)
 * meanwhile. Results come only once every entry is validated, so the health checks answered
 * before the first result are those answered during the validation.
 */
describe('validation of batch entries runs off the thread that serves health checks', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 2 } });
  });
  afterAll(async () => h?.close());

  it('health answers while a list of 40 different traces is fitted, and no trace is fitted on the main thread', async () => {
    const scenarios = Array.from({ length: 40 }, (_, i) => traceScenario(trace(i + 1)));
    // Connections up first, so the checks below run while the server validates, not while clients connect.
    const client = h.client();
    await client.evaluate(specScenario(1000, 1e-4), 'greedy');
    const health = healthClient(h.server.address);
    await health.check();
    const fitsBefore = traceFitCounts().fits;
    let running = true;
    let answered = 0;
    const prober = (async () => {
      while (running) {
        expect(await health.check()).toBe('SERVING');
        answered++;
      }
    })();
    const controller = new AbortController();
    let first: ScenarioResult | undefined;
    let answeredDuringValidation = -1;
    try {
      for await (const r of client.solveBatch({ list: { scenarios } }, { signal: controller.signal })) {
        first = r;
        answeredDuringValidation = answered;
        controller.abort(); // the 40 MMPP solves are not what this test is about
      }
    } catch {
      /* cancelled */
    }
    running = false;
    await prober;
    health.close();
    console.info(`health answered ${answeredDuringValidation} checks while 40 traces were fitted`);
    expect(first?.result ?? first?.error).toBeDefined();
    // The fits ran on the pool's threads, not here.
    expect(traceFitCounts().fits).toBe(fitsBefore);
    expect(answeredDuringValidation).toBeGreaterThanOrEqual(100); // 19 when the fits ran on the main thread
  });

  it('Simulate and the planning RPCs fit a scenario\'s trace on the pool too, and name the field of a bad one', async () => {
    type Unary = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: Record<string, unknown>) => void) => void;
    const client = h.client();
    const raw = client.raw as unknown as Record<'Simulate' | 'Plan', Unary>;
    const call = (m: 'Simulate' | 'Plan', req: unknown): Promise<{ e: grpc.ServiceError | null; r?: Record<string, unknown> }> =>
      new Promise((resolve) => raw[m].call(client.raw, req, new grpc.Metadata(), {}, (e, r) => resolve({ e, r })));
    const before = traceFitCounts().fits;
    const sim = await call('Simulate', { scenario: traceScenario(trace(201)), policy: 'greedy', requests: 5000 });
    expect(sim.e).toBeNull();
    expect(sim.r?.arrivals).toBe('mmpp');
    const plan = await call('Plan', { scenario: traceScenario(trace(202)), latencyTarget: 0.05 });
    expect(plan.e).toBeNull();
    expect(traceFitCounts().fits).toBe(before); // fitted on the pool's threads, not here
    const bad = await call('Simulate', { scenario: traceScenario([0.3, 0.2, 0.1]), policy: 'greedy' });
    expect(bad.e?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(bad.e?.metadata.get('batchwise-field')[0]).toMatch(/^scenario\.arrivalProcess\.trace/);
  });

  it('a grid over one base trace fits it once, not once per point', () => {
    const source = openBatch({ grid: { base: traceScenario(trace(99)), powerWeight: Array.from({ length: 40 }, (_, i) => 1e-5 * (i + 1)) } } as never, 100);
    const before = traceFitCounts();
    const prepared = prepareScenarios(source.entries(0, source.count).map((e) => e.scenario), DEFAULT_LIMITS);
    const after = traceFitCounts();
    expect(prepared.every((p) => p.ok)).toBe(true);
    expect(after.fits - before.fits).toBe(1);
    expect(after.hits - before.hits).toBe(39);
  });
});
