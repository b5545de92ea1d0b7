import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanResult } from '../../src/plan/constrained.js';
import type { ExportResult } from '../../src/plan/export/exportPolicy.js';
import type { FleetResult } from '../../src/plan/fleet.js';
import { planningRequest, type FrontierMessage } from '../../src/plan/request.js';
import { BatchwiseClient } from '../../src/service/client.js';
import { BatchwiseServer } from '../../src/service/server.js';
import { specScenario } from '../helpers/scenarios.js';

/** The planning RPCs through a real server on 127.0.0.1:0 and a real grpc-js client, against the in-process functions. */
type Unary = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: unknown) => void) => grpc.ClientUnaryCall;

let server: BatchwiseServer;
let client: BatchwiseClient;

function call<T>(method: 'Plan' | 'Frontier' | 'Fleet' | 'Export', request: unknown): Promise<T> {
  const raw = client.raw as unknown as Record<string, Unary>;
  return new Promise((resolve, reject) => {
    raw[method].call(client.raw, request, new grpc.Metadata(), {}, (e, r) => (e ? reject(e) : resolve(r as T)));
  });
}

async function status(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  server = await BatchwiseServer.start({ port: 0, logger: pino({ level: 'silent' }), limits: { maxConcurrentSolves: 1 }, processMetrics: false });
  client = new BatchwiseClient(server.address);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.shutdown({ graceMs: 0 });
});

describe('planning RPCs', () => {
  const light = specScenario(1500, 1e-4);

  it('Plan returns the in-process answer (a mix exactly on the target)', async () => {
    const r = await call<PlanResult>('Plan', { scenario: light, latencyTarget: 5e-3 });
    const expected = (await planningRequest('plan', { scenario: light, latencyTarget: 5e-3 })) as PlanResult;
    expect(r.status).toBe('binding');
    expect(r.optimum).toEqual(expected.optimum);
    expect(r.mix!.figures.meanResponseTime).toBeCloseTo(5e-3, 15);
    expect(r.mix!.probability).toBe(expected.mix!.probability);
    expect(r.mix!.state).toBe(expected.mix!.state);
    expect(r.mix!.cycleTimes).toEqual([...expected.mix!.cycleTimes]);
    expect(r.deterministic.policy.actions).toEqual(expected.deterministic.policy.actions);
    expect(r.limits.powerBound).toEqual(expected.limits.powerBound);
    const budget = await call<PlanResult>('Plan', { scenario: light, powerBudget: 80 });
    expect(budget.mix!.figures.meanPower).toBeCloseTo(80, 12);
  });

  it('Frontier returns the vertices, with the unbounded weight as +∞', async () => {
    const r = await call<FrontierMessage>('Frontier', { scenario: light });
    const expected = await planningRequest('frontier', { scenario: light });
    expect(r.vertices.map((v) => [v.meanResponseTime, v.meanPower])).toEqual(expected.vertices.map((v) => [v.meanResponseTime, v.meanPower]));
    expect(r.vertices[0].weightHigh).toBe(Infinity);
    expect(r.breakpoints).toEqual(expected.breakpoints);
    expect(r.complete).toBe(true);
  });

  it('Fleet and Export agree with the in-process functions', async () => {
    const fleet = await call<FleetResult>('Fleet', { scenario: specScenario(4000, 1e-3), totalRate: 20_000, latencyTarget: 6e-3 });
    expect(fleet.accelerators).toBe(6);
    const local = await planningRequest('fleet', { scenario: specScenario(4000, 1e-3), totalRate: 20_000, latencyTarget: 6e-3 });
    expect(fleet.at.fleetPower).toBe(local.at.fleetPower);
    expect(fleet.next.fleetPower).toBe(local.next.fleetPower);
    const req = { scenario: specScenario(4000, 1e-3), target: 'triton', requests: 30_000, tuningRequests: 10_000, seed: 2 };
    const ex = await call<ExportResult>('Export', req);
    const exLocal = await planningRequest('export', req);
    expect(ex.config).toBe(exLocal.config);
    expect(ex.gap.difference).toBe(exLocal.gap.difference);
  });

  it('input errors are INVALID_ARGUMENT naming the field', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['Plan', { scenario: specScenario(4000, 1e-3), latencyTarget: 5e-3 }, /^latencyTarget: 5\.0000 ms cannot be met/],
      ['Plan', { scenario: specScenario(4000, 1e-3) }, /^latencyTarget: give exactly one of latencyTarget/],
      ['Plan', { scenario: { ...light, arrivalRate: -1 }, latencyTarget: 5e-3 }, /^scenario\.arrivalRate: must be > 0/],
      ['Export', { scenario: light, target: 'kserve' }, /^target: must be one of triton, tf-serving, ray-serve, torchserve/],
      ['Fleet', { scenario: light, latencyTarget: 5e-3 }, /^totalRate: is required/],
    ];
    for (const [method, req, msg] of cases) {
      const e = await status(call(method as 'Plan', req));
      expect(e.code, method).toBe(grpc.status.INVALID_ARGUMENT);
      expect(e.details).toMatch(msg);
    }
  });
});
