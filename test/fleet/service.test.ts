import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli as run } from '../helpers/cli.js';
import { runFleet } from '../../src/fleet/run.js';
import { validateFleet } from '../../src/fleet/scenario.js';
import { planSegregation } from '../../src/fleet/segregation.js';
import { leastAccelerators } from '../../src/fleet/sizing.js';
import type { JobEnd } from '../../src/service/pool/workerPool.js';
import { BatchwiseClient, RemoteError } from '../../src/service/client.js';
import { BatchwiseServer } from '../../src/service/server.js';
import { ScenarioError } from '../../src/model/errors.js';
import { twoClassFleet } from './helpers.js';

/** FleetSimulate / FleetPlan through a real server on 127.0.0.1:0 and a real grpc-js client, against the in-process functions. */
let server: BatchwiseServer;
let client: BatchwiseClient;
const ends: JobEnd[] = [];

beforeAll(async () => {
  server = await BatchwiseServer.start({ port: 0, logger: pino({ level: 'silent' }), limits: { maxConcurrentSolves: 1 }, processMetrics: false });
  server.pool.onJobEnd((e) => ends.push(e));
  client = new BatchwiseClient(server.address);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.shutdown({ graceMs: 0 });
});

/** The raw grpc-js call, so the test also sees the wire form (not only the client's conversion). */
function raw(method: 'FleetSimulate' | 'FleetPlan', request: unknown, opts: grpc.CallOptions = {}): Promise<Record<string, unknown>> {
  const r = client.raw as unknown as Record<string, (q: unknown, md: grpc.Metadata, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, v?: unknown) => void) => void>;
  return new Promise((resolve, reject) => r[method].call(client.raw, request, new grpc.Metadata(), opts, (e, v) => (e ? reject(e) : resolve(v as Record<string, unknown>))));
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

describe('FleetSimulate and FleetPlan RPCs', () => {
  const json = twoClassFleet(2, 0.5);

  it('FleetSimulate equals runFleet for the same seed (jsq, and segregation with its plan)', async () => {
    const f = validateFleet(json);
    for (const router of ['jsq', 'segregation']) {
      const remote = await client.fleetSimulate({ fleet: json, router, requests: 30_000, seed: 4 });
      const local = await runFleet(f, router, { requests: 30_000, seed: 4 });
      expect(remote.simulation, router).toEqual(local.simulation);
      expect(remote.plan, router).toEqual(local.plan);
    }
    // The wire form: batching as the enum name, counts as rows, CI half-widths as numbers.
    const wire = await raw('FleetSimulate', { fleet: json, router: 'segregation', requests: 20_000 });
    const sim = wire.simulation as Record<string, unknown>;
    expect(sim.batching).toBe('PER_CLASS');
    expect(sim.seed).toBe(1);
    expect(typeof sim.averageCostCi).toBe('number');
    expect((wire.plan as { counts: unknown }).counts).toEqual([{ classes: [1, 1] }]);
  });

  it('FleetSimulate with a learned router: the weights travel as rows and give the in-process run', async () => {
    const f = validateFleet(json);
    const F = 6 + f.accelerators;
    // Hand-made weights (not trained): prefer little queued work of the own class, a different preference per class.
    const theta = f.classes.map((_, c) => Array.from({ length: F }, (_, i) => (i === 1 ? -3 : i === 6 + c ? 0.5 : i === 0 ? -1 : 0)));
    const weights = { format: 'batchwise.linear-router.v1' as const, accelerators: f.accelerators, classes: f.classes.length, theta, tau: 0.094 };
    const remote = await client.fleetSimulate({ fleet: json, router: 'learned', weights, requests: 20_000, seed: 8 });
    const local = await runFleet(f, 'learned', { learned: weights, requests: 20_000, seed: 8 });
    expect(remote.simulation).toEqual(local.simulation);
    expect(remote.simulation.router).toBe(local.simulation.router);
    const e = (await failure(client.fleetSimulate({ fleet: json, router: 'learned', weights: { ...weights, theta: [theta[0].slice(1), theta[1]] } }))) as ScenarioError;
    expect(e.field).toBe('weights.theta[0]');
  });

  it('FleetPlan equals planSegregation, and with least the in-process sizing', async () => {
    const f = validateFleet(json);
    const remote = await client.fleetPlan({ fleet: json });
    expect(remote.plan).toEqual(await planSegregation(f));
    expect(remote.kind).toBeUndefined();
    const tight = { ...json, classes: json.classes.map((c) => ({ ...c, latencyTarget: c.name === 'language' ? 0.05 : 0.004 })) };
    const least = await client.fleetPlan({ fleet: tight, least: true, kind: 'gpu', maxAccelerators: 8 });
    const localLeast = await leastAccelerators(validateFleet(tight), 0, 8);
    expect(localLeast).not.toBeNull();
    expect(least.count).toBe(localLeast!.count);
    expect(least.rejected).toEqual(localLeast!.rejected);
    expect(least.plan).toEqual(localLeast!.plan);
  });

  it('MMPP classes over the wire (generator as rows, burst profile): same simulation and plan as in process', async () => {
    const bursty = {
      ...json,
      classes: [
        { name: 'vision', arrivalProcess: { burst: { meanRate: 750, peakToMean: 2, meanBurstSeconds: 0.01, meanGapSeconds: 0.04 } }, latencyTarget: 0.01 },
        { name: 'language', arrivalProcess: { mmpp: { rates: [20, 60], generator: [[-2, 2], [1, -1]] } } },
      ],
    };
    const f = validateFleet(bursty);
    expect(f.classes[1].arrivalRate).toBeCloseTo(20 / 3 + 40, 12);
    const remote = await client.fleetSimulate({ fleet: bursty, router: 'segregation', requests: 20_000, seed: 6 });
    const local = await runFleet(f, 'segregation', { requests: 20_000, seed: 6 });
    expect(remote).toEqual(local);
    expect(remote.plan!.groups.every((g) => g.phases?.length === 2)).toBe(true);
    expect((await client.fleetPlan({ fleet: bursty })).plan).toEqual(local.plan);
  });

  it('bad input is INVALID_ARGUMENT naming the field (and its bound)', async () => {
    const bad = (patch: (j: ReturnType<typeof twoClassFleet>) => void): unknown => {
      const j = structuredClone(json);
      patch(j);
      return j;
    };
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['FleetSimulate', { fleet: bad((j) => (j.accelerators[0].serviceTime.language.linear!.perItem = -1)) }, 'fleet.accelerators[0].serviceTime.language.linear.perItem', /must be/],
      ['FleetSimulate', { fleet: bad((j) => delete j.classes[1].arrivalRate) }, 'fleet.classes[1].arrivalRate', /is required/],
      ['FleetSimulate', { fleet: bad((j) => (j.accelerators[0].count = 300)) }, 'fleet.accelerators[0].count', /≤ 256/],
      ['FleetSimulate', { fleet: bad((j) => (j.classes[0].arrivalRate = 1e6)) }, 'fleet.classes', /accelerator-seconds per second/],
      ['FleetSimulate', { fleet: json, router: 'fastest' }, 'router', /unknown router/],
      ['FleetSimulate', { fleet: json, router: 'learned' }, 'weights', /are required/],
      ['FleetSimulate', { fleet: json, requests: 300_000_000 }, 'requests', /≤ 200000000/],
      ['FleetSimulate', {}, 'fleet', /is required/],
      ['FleetPlan', { fleet: bad((j) => (j.classes[1].arrivalProcess = { mmpp: { rates: [10, 100], generator: [-1, 1, 1, 0] } })) }, 'fleet.classes[1].arrivalProcess.mmpp.generator', /row 1 sums to 1/],
      ['FleetPlan', { fleet: { ...json, batching: 'MIXED' } }, 'fleet.batching', /PER_CLASS/],
      ['FleetPlan', { fleet: json, least: true, kind: 'tpu' }, 'kind', /names no accelerator group/],
    ];
    for (const [method, req, field, reason] of cases) {
      const e = (await failure(method === 'FleetSimulate' ? client.fleetSimulate(req) : client.fleetPlan(req))) as ScenarioError;
      expect(e, field).toBeInstanceOf(ScenarioError);
      expect(e.field).toBe(field);
      expect(e.reason).toMatch(reason);
      const w = (await failure(raw(method as 'FleetPlan', req))) as grpc.ServiceError;
      expect(w.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(w.details.startsWith(`${field}: `)).toBe(true);
    }
  });

  it('a deadlined or cancelled call ends promptly and frees its worker', async () => {
    const long = { fleet: twoClassFleet(4, 1), router: 'jsq', requests: 100_000_000 };
    let t0 = performance.now();
    const e = (await failure(client.fleetSimulate(long, { deadline: Date.now() + 400 }))) as RemoteError;
    expect(e).toBeInstanceOf(RemoteError);
    expect(e.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(performance.now() - t0).toBeLessThan(3000);
    const aborted = (): number => ends.filter((x) => x.kind === 'fleetSimulate' && x.outcome === 'aborted').length;
    // The job stopped on the worker (not left running), and the one worker serves the next call.
    await vi.waitFor(() => expect(aborted()).toBe(1), { timeout: 3000 });
    t0 = performance.now();
    await client.fleetPlan({ fleet: json });
    expect(performance.now() - t0).toBeLessThan(10_000);
    const controller = new AbortController();
    t0 = performance.now();
    setTimeout(() => controller.abort(), 400);
    const c = (await failure(client.fleetSimulate(long, { signal: controller.signal }))) as RemoteError;
    expect(c.code).toBe(grpc.status.CANCELLED);
    expect(performance.now() - t0).toBeLessThan(3000);
    await vi.waitFor(() => expect(aborted()).toBe(2), { timeout: 3000 });
  });

  it('the CLI sends fleet simulate / plan to --server and prints the same report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'batchwise-fleet-rpc-'));
    const file = join(dir, 'fleet.json');
    writeFileSync(file, JSON.stringify(json));
    const args = ['fleet', 'simulate', file, '--router', 'segregation', '--requests', '20000', '--seed', '3'];
    const local = await run(...args);
    const remote = await run(...args, '--server', server.address);
    expect(remote.code).toBe(0);
    expect(remote.out).toBe(local.out);
    const plan = await run('fleet', 'plan', file, '--json', '--server', server.address);
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.out)).toEqual(JSON.parse((await run('fleet', 'plan', file, '--json')).out));
    const least = await run('fleet', 'plan', file, '--least', '--json', '--server', server.address);
    expect(least.code).toBe(0);
    expect(JSON.parse(least.out)).toEqual(JSON.parse((await run('fleet', 'plan', file, '--least', '--json')).out));
    const bad = await run('fleet', 'simulate', file, '--router', 'fastest', '--server', server.address);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/router: unknown router "fastest"/);
  });
});
