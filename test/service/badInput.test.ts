import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAIL_BOUNDS } from '../../src/service/rpc/statusDetails.js';
import { BadInputClient, type BadCall } from './support/badInputs.js';
import { startHarness, type Harness } from './support/harness.js';

/**
 * A generated bad-input suite against a real server (support/badInputs.ts makes the calls; the
 * benchmark times the same calls). Each call must end with OK (a value that is merely unusual),
 * INVALID_ARGUMENT or RESOURCE_EXHAUSTED, never INTERNAL or UNKNOWN; where the in-process
 * validator refuses the same scenario, the server names the same field; error texts stay within
 * their bound; health answers SERVING throughout.
 */
const ALLOWED = new Set([grpc.status.OK, grpc.status.INVALID_ARGUMENT, grpc.status.RESOURCE_EXHAUSTED]);

describe('a generated bad-input suite against a real server', () => {
  let h: Harness;
  let client: BadInputClient;
  let health: grpc.Client & { Check(req: { service: string }, cb: (e: grpc.ServiceError | null, r?: { status: string }) => void): void };
  const seen: BadCall[] = [];
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 2 } });
    client = new BadInputClient(h.server.address);
    const hdef = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, { enums: String })) as unknown as { grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } } };
    health = new hdef.grpc.health.v1.Health(h.server.address, grpc.credentials.createInsecure()) as never;
  });
  afterAll(async () => {
    client?.close();
    health?.close();
    await h?.close();
  });

  const serving = (): Promise<string> => new Promise((resolve) => health.Check({ service: '' }, (e, r) => resolve(e ? `error ${e.code}` : String(r?.status))));

  const check = (c: BadCall, under = 'scenario'): void => {
    seen.push(c);
    const o = c.outcome;
    expect(ALLOWED.has(o.code), `${c.label}: ${o.code} ${o.details}`).toBe(true);
    expect(Buffer.byteLength(o.details), c.label).toBeLessThanOrEqual(DETAIL_BOUNDS.message);
    if (c.refusal) {
      expect(o.code, `${c.label}: ${o.details}`).toBe(grpc.status.INVALID_ARGUMENT);
      expect(o.field, c.label).toBe(under ? `${under}.${c.refusal}` : c.refusal);
    }
  };

  it('every numeric field at seven bad values, through Evaluate, Simulate, Plan, Solve, Frontier and Export', async () => {
    const calls: BadCall[] = [];
    for await (const c of client.numeric()) {
      check(c);
      calls.push(c);
    }
    expect(calls.filter((c) => c.refusal && c.rpc === 'Solve').length).toBeGreaterThan(50);
    expect(await serving()).toBe('SERVING');
  });

  it('every numeric field of a fleet at seven bad values, through FleetSimulate and FleetPlan', async () => {
    const calls: BadCall[] = [];
    for await (const c of client.fleet()) {
      check(c, 'fleet');
      calls.push(c);
    }
    expect(calls.filter((c) => c.refusal && c.rpc === 'FleetPlan').length).toBeGreaterThan(40);
    expect(await serving()).toBe('SERVING');
  });

  it("Plan's target fields at bad values and two at once, refused naming the field", async () => {
    const calls: BadCall[] = [];
    for await (const c of client.targets()) {
      check(c, '');
      calls.push(c);
    }
    expect(new Set(calls.map((c) => c.refusal))).toEqual(new Set(['latencyTarget', 'powerBudget', 'p95Target', 'p99Target', 'p999Target', 'objective']));
    expect(await serving()).toBe('SERVING');
  });

  it('oversized strings are refused with bounded texts', async () => {
    for await (const c of client.strings()) {
      check(c);
      expect(c.outcome.code, c.label).toBe(grpc.status.INVALID_ARGUMENT);
    }
    expect(await serving()).toBe('SERVING');
  });

  it('bytes that are no protobuf end INVALID_ARGUMENT on field request, on every RPC', async () => {
    const calls: BadCall[] = [];
    for await (const c of client.garbage()) {
      check(c);
      calls.push(c);
      // Bytes that happen to decode (the JSON text parses as unknown fields) reach validation instead.
      if (c.outcome.code === grpc.status.INVALID_ARGUMENT) expect(c.outcome.field, `${c.rpc}: ${c.outcome.details}`).toBeDefined();
    }
    expect(new Set(calls.map((c) => c.rpc)).size).toBeGreaterThanOrEqual(10);
    expect(calls.some((c) => c.outcome.field === 'request' && c.outcome.code === grpc.status.INVALID_ARGUMENT)).toBe(true);
    expect(await serving()).toBe('SERVING');
  });

  it('covers at least 300 calls and none ended INTERNAL or UNKNOWN', () => {
    expect(seen.length).toBeGreaterThanOrEqual(300);
    expect(seen.filter((c) => c.outcome.code === grpc.status.INTERNAL || c.outcome.code === grpc.status.UNKNOWN)).toEqual([]);
  });
});
