import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import type { SimulationResult } from '../../src/sim/result.js';
import { TritonPolicy } from '../../src/sim/policies/triton.js';
import { simulate, tablePolicy } from '../../src/sim/simulate.js';
import { BatchwiseClient, fromGrpcError } from '../../src/service/client.js';
import { BatchwiseServer } from '../../src/service/server.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { TINY, TINY_TRACE } from './tiny.js';

/** The Simulate RPC through a real server on 127.0.0.1:0 and a real grpc-js client. */
type SimulateFn = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: SimulationResult) => void) => grpc.ClientUnaryCall;

let server: BatchwiseServer;
let client: BatchwiseClient;

function call(request: unknown, deadlineMs?: number): Promise<SimulationResult> {
  const raw = client.raw as unknown as { Simulate: SimulateFn };
  return new Promise((resolve, reject) => {
    raw.Simulate.call(client.raw, request, new grpc.Metadata(), deadlineMs ? { deadline: Date.now() + deadlineMs } : {}, (e, r) =>
      e ? reject(e) : resolve(r as SimulationResult),
    );
  });
}

/** The message form of an in-process result: CI half-widths that are null are left unset. */
function asMessage(r: SimulationResult): unknown {
  return JSON.parse(JSON.stringify(r, (_k, v: unknown) => (v === null ? undefined : v)));
}

beforeAll(async () => {
  server = await BatchwiseServer.start({
    port: 0,
    logger: pino({ level: 'silent' }),
    limits: { maxConcurrentSolves: 1 },
    processMetrics: false,
  });
  client = new BatchwiseClient(server.address);
}, 60_000);

afterAll(async () => {
  client?.close();
  await server?.shutdown({ graceMs: 0 });
});

describe('Simulate RPC', () => {
  const spec = specScenario(4000, 1e-3);

  it('returns what the in-process simulator returns, field for field', async () => {
    const r = await call({ scenario: spec, policy: 'triton:delay=1ms,preferred=8|16|32', requests: 20_000, seed: 3 });
    const { params } = validateScenario(spec);
    const expected = simulate(params, new TritonPolicy({ maxQueueDelay: 1e-3, preferredBatchSizes: [8, 16, 32], maxBatchSize: 32 }), { requests: 20_000, seed: 3 });
    expect(r).toEqual(asMessage(expected));
  });

  it('solves for optimal on the server, and keeps seed 0 apart from the default', async () => {
    const r = await call({ scenario: spec, requests: 20_000, seed: 0 });
    const solved = await solveScenario(spec);
    const optimal = { actions: Int32Array.from(solved.policy.actions), tailBatch: 32 };
    const expected = simulate(validateScenario(spec).params, tablePolicy(optimal, 32, 'optimal'), { requests: 20_000, seed: 0 });
    expect(r).toEqual(asMessage(expected));
    const unseeded = await call({ scenario: spec, policy: 'greedy', requests: 5_000 });
    expect(unseeded.seed).toBe(1);
  });

  it('replays arrival timestamps', async () => {
    const r = await call({ scenario: TINY, policy: 'greedy', arrivalTimestamps: Array.from(TINY_TRACE), warmupRequests: 0 });
    expect(r.arrivals).toBe('trace');
    expect(r.requests).toBe(6);
    expect(r.meanResponseTime).toBeCloseTo(18.3 / 6, 12);
    // One measured batch ({5.2}, R = 3.8 s) after four warm-up requests: one group, so the
    // half-widths are unset in the message (null in-process), not 0.
    const one = await call({ scenario: TINY, policy: 'greedy', arrivalTimestamps: Array.from(TINY_TRACE), warmupRequests: 4, requests: 1 });
    expect(one.requests).toBe(1);
    expect(one.meanResponseTime).toBeCloseTo(3.8, 12);
    expect(one.confidence.batches).toBe(1);
    expect(one.confidence.meanResponseTime).toBeUndefined();
  });

  it('answers INVALID_ARGUMENT naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ scenario: spec, policy: 'triton:delay=2' }, 'policy.delay'],
      [{ scenario: { ...spec, arrivalRate: 1e6 }, policy: 'greedy' }, 'scenario.arrivalRate'],
      [{ scenario: spec, policy: 'static:4' }, 'policy'],
      [{ policy: 'greedy' }, 'scenario'],
    ];
    for (const [request, field] of cases) {
      const e = fromGrpcError(await call(request).catch((x: unknown) => x));
      expect(e.name, JSON.stringify(request)).toBe('ScenarioError');
      expect((e as { field?: string }).field).toBe(field);
    }
  });

  it('stops a long simulation at the deadline and frees the worker', async () => {
    const e = (await call({ scenario: spec, policy: 'greedy', requests: 150_000_000 }, 300).catch((x: unknown) => x)) as grpc.ServiceError;
    expect(e.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    const r = await call({ scenario: spec, policy: 'greedy', requests: 5_000 });
    expect(r.requests).toBeGreaterThanOrEqual(5_000);
  });
});
