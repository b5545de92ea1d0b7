import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { validateScenario } from '../../src/model/validate.js';
import { loadPackageDefinition } from '../../src/service/proto.js';
import { DETAIL_BOUNDS } from '../../src/service/rpc/statusDetails.js';
import { specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from './support/harness.js';

/**
 * A generated bad-input suite against a real server: every numeric field of a scenario set to
 * each of seven bad values, sent through Evaluate, Simulate, Plan and (where it is refused)
 * Solve; oversized strings; raw bytes that are no protobuf at all, on every RPC. Each call must
 * end with OK (a value that is merely unusual), INVALID_ARGUMENT or RESOURCE_EXHAUSTED, never
 * INTERNAL or UNKNOWN; where the in-process validator refuses the same scenario, the server names
 * the same field; error texts stay within their bound; health answers SERVING throughout.
 */
type Callback = (e: grpc.ServiceError | null, r?: unknown) => void;
type Raw = grpc.Client & Record<string, (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb?: Callback) => unknown>;

interface Outcome {
  readonly code: number;
  readonly details: string;
  readonly field?: string;
}

const DOUBLE_FIELDS: Array<[string, (s: Record<string, any>, v: number) => void]> = [
  ['arrivalRate', (s, v) => (s.arrivalRate = v)],
  ['serviceTime.linear.perItem', (s, v) => (s.serviceTime.linear.perItem = v)],
  ['serviceTime.linear.base', (s, v) => (s.serviceTime.linear.base = v)],
  ['serviceTime.cv', (s, v) => ((s.serviceTime.cv = v), (s.serviceTime.distribution = 'GAMMA'))],
  ['power.idleWatts', (s, v) => (s.power.idleWatts = v)],
  ['power.busyLinear.perItem', (s, v) => (s.power.busyLinear.perItem = v)],
  ['power.busyLinear.base', (s, v) => (s.power.busyLinear.base = v)],
  ['objective.latencyWeight', (s, v) => (s.objective.latencyWeight = v)],
  ['objective.powerWeight', (s, v) => (s.objective.powerWeight = v)],
  ['solver.tolerance', (s, v) => (s.solver = { tolerance: v })],
];
const BAD_VALUES = [-1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e308, 5e-324, 1e12];

function cases(): Array<{ name: string; scenario: Record<string, unknown>; refusal?: string }> {
  const out: Array<{ name: string; scenario: Record<string, unknown>; refusal?: string }> = [];
  for (const [path, set] of DOUBLE_FIELDS) {
    for (const v of BAD_VALUES) {
      const s = JSON.parse(JSON.stringify(specScenario(1000, 1e-4))) as Record<string, any>;
      set(s, v);
      let refusal: string | undefined;
      try {
        validateScenario(s);
      } catch (e) {
        if (!(e instanceof ScenarioError)) throw e;
        refusal = e.field;
      }
      out.push({ name: `${path} = ${v}`, scenario: s, ...(refusal ? { refusal } : {}) });
    }
  }
  return out;
}

const ALLOWED = new Set([grpc.status.OK, grpc.status.INVALID_ARGUMENT, grpc.status.RESOURCE_EXHAUSTED]);

describe('a generated bad-input suite against a real server', () => {
  let h: Harness;
  let raw: Raw;
  let health: grpc.Client & { Check(req: { service: string }, cb: (e: grpc.ServiceError | null, r?: { status: string }) => void): void };
  const seen: Outcome[] = [];
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 2 } });
    const def = grpc.loadPackageDefinition(loadPackageDefinition({ defaults: true })) as unknown as { batchwise: { v1: { BatchingPolicy: grpc.ServiceClientConstructor } } };
    raw = new def.batchwise.v1.BatchingPolicy(h.server.address, grpc.credentials.createInsecure()) as unknown as Raw;
    const hdef = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, { enums: String })) as unknown as { grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } } };
    health = new hdef.grpc.health.v1.Health(h.server.address, grpc.credentials.createInsecure()) as never;
  });
  afterAll(async () => {
    raw?.close();
    health?.close();
    await h?.close();
  });

  const record = (e: grpc.ServiceError | null): Outcome => {
    const o: Outcome = e ? { code: e.code, details: e.details, field: e.metadata.get('batchwise-field')[0] as string | undefined } : { code: grpc.status.OK, details: '' };
    seen.push(o);
    return o;
  };
  const unary = (method: string, req: unknown): Promise<Outcome> =>
    new Promise((resolve) => raw[method](req, new grpc.Metadata(), { deadline: Date.now() + 60_000 }, (e) => resolve(record(e))));
  const stream = (method: string, req: unknown): Promise<Outcome> =>
    new Promise((resolve) => {
      const s = raw[method](req, new grpc.Metadata(), { deadline: Date.now() + 60_000 }) as grpc.ClientReadableStream<unknown>;
      s.on('data', () => undefined);
      s.on('error', (e: grpc.ServiceError) => resolve(record(e)));
      s.on('end', () => resolve(record(null)));
    });
  const serving = (): Promise<string> => new Promise((resolve) => health.Check({ service: '' }, (e, r) => resolve(e ? `error ${e.code}` : String(r?.status))));

  const check = (o: Outcome, refusal: string | undefined, label: string): void => {
    expect(ALLOWED.has(o.code), `${label}: ${o.code} ${o.details}`).toBe(true);
    expect(Buffer.byteLength(o.details), label).toBeLessThanOrEqual(DETAIL_BOUNDS.message);
    if (refusal) {
      expect(o.code, `${label}: ${o.details}`).toBe(grpc.status.INVALID_ARGUMENT);
      expect(o.field, label).toBe(`scenario.${refusal}`);
    }
  };

  it('every numeric field at seven bad values, through Evaluate, Simulate, Plan and Solve', async () => {
    const all = cases();
    for (const c of all) {
      check(await unary('Evaluate', { scenario: c.scenario, policy: { spec: 'control-limit:3' } }), c.refusal, `Evaluate ${c.name}`);
      check(await unary('Simulate', { scenario: c.scenario, policy: 'greedy', requests: 2000 }), c.refusal, `Simulate ${c.name}`);
      if (c.refusal) {
        check(await unary('Plan', { scenario: c.scenario, latencyTarget: 0.01 }), c.refusal, `Plan ${c.name}`);
        check(await stream('Solve', { scenario: c.scenario }), c.refusal, `Solve ${c.name}`);
      }
    }
    expect(all.filter((c) => c.refusal).length).toBeGreaterThan(50);
    expect(await serving()).toBe('SERVING');
  });

  it('oversized strings are refused with bounded texts', async () => {
    const huge = 'x'.repeat(300_000);
    for (const policy of [huge, `table:${huge}`, `triton:delay=${huge}`, `static:${'9'.repeat(5000)}`]) {
      check(await unary('Evaluate', { scenario: specScenario(1000, 1e-4), policy: { spec: policy } }), undefined, 'Evaluate policy');
      expect(seen[seen.length - 1].code).toBe(grpc.status.INVALID_ARGUMENT);
      check(await unary('Simulate', { scenario: specScenario(1000, 1e-4), policy }), undefined, 'Simulate policy');
      expect(seen[seen.length - 1].code).toBe(grpc.status.INVALID_ARGUMENT);
    }
    expect(await serving()).toBe('SERVING');
  });

  it('bytes that are no protobuf end INVALID_ARGUMENT on field request, on every RPC', async () => {
    const client = new grpc.Client(h.server.address, grpc.credentials.createInsecure());
    const methods = Object.keys((raw as unknown as { constructor: { service: Record<string, { path: string; responseStream: boolean }> } }).constructor.service);
    const garbage = [Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 1, 2]), Buffer.from([0xff, 0xff, 0xff]), Buffer.from('{"arrivalRate": 1000}')];
    try {
      for (const m of methods) {
        const def = (raw as unknown as { constructor: { service: Record<string, { path: string; responseStream: boolean }> } }).constructor.service[m];
        for (const bytes of garbage) {
          const o = await new Promise<Outcome>((resolve) => {
            if (def.responseStream) {
              const s = client.makeServerStreamRequest(def.path, (b: Buffer) => b, (b: Buffer) => b, bytes, new grpc.Metadata(), { deadline: Date.now() + 30_000 });
              s.on('data', () => undefined);
              s.on('error', (e: grpc.ServiceError) => resolve(record(e)));
              s.on('end', () => resolve(record(null)));
            } else {
              client.makeUnaryRequest(def.path, (b: Buffer) => b, (b: Buffer) => b, bytes, new grpc.Metadata(), { deadline: Date.now() + 30_000 }, (e) => resolve(record(e)));
            }
          });
          expect(ALLOWED.has(o.code), `${m}: ${o.code} ${o.details}`).toBe(true);
          // Bytes that happen to decode (the JSON text parses as unknown fields) reach validation instead.
          if (o.code === grpc.status.INVALID_ARGUMENT) expect(o.field, `${m}: ${o.details}`).toBeDefined();
        }
      }
      expect(methods.length).toBeGreaterThanOrEqual(10);
    } finally {
      client.close();
    }
    expect(seen.some((o) => o.field === 'request' && o.code === grpc.status.INVALID_ARGUMENT)).toBe(true);
    expect(await serving()).toBe('SERVING');
  });

  it('covers at least 300 calls and none ended INTERNAL or UNKNOWN', () => {
    expect(seen.length).toBeGreaterThanOrEqual(300);
    expect(seen.filter((o) => o.code === grpc.status.INTERNAL || o.code === grpc.status.UNKNOWN)).toEqual([]);
  });
});
