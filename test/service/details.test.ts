import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { loadPackageDefinition } from '../../src/service/proto.js';
import { BAD_REQUEST_TYPE, DETAIL_BOUNDS, STATUS_DETAILS_KEY, badRequestStatus, decodeBadRequest, decodeStatus, truncateUtf8 } from '../../src/service/rpc/statusDetails.js';
import { protoName } from '../../src/validate/index.js';
import { specScenario } from '../helpers/scenarios.js';
import { comparable, startHarness, type Harness } from './support/harness.js';

type Callback = (e: grpc.ServiceError | null, r?: unknown) => void;
type RawClient = grpc.Client & {
  Evaluate(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback): grpc.ClientUnaryCall;
  Simulate(req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: Callback): grpc.ClientUnaryCall;
  Solve(req: unknown): grpc.ClientReadableStream<unknown>;
  SolveBatch(req: unknown): grpc.ClientReadableStream<unknown>;
};

/** A plain grpc-js client, so the trailers are seen as they arrive (BatchwiseClient turns them into errors). */
function rawClient(address: string): RawClient {
  const def = grpc.loadPackageDefinition(loadPackageDefinition({ defaults: true })) as unknown as { batchwise: { v1: { BatchingPolicy: grpc.ServiceClientConstructor } } };
  return new def.batchwise.v1.BatchingPolicy(address, grpc.credentials.createInsecure()) as unknown as RawClient;
}

const unaryError = (call: (cb: Callback) => void): Promise<grpc.ServiceError> =>
  new Promise((resolve, reject) => call((e) => (e ? resolve(e) : reject(new Error('the call succeeded')))));

function streamError(stream: grpc.ClientReadableStream<unknown>): Promise<grpc.ServiceError> {
  return new Promise((resolve, reject) => {
    stream.on('data', () => undefined);
    stream.on('error', resolve);
    stream.on('end', () => reject(new Error('the stream ended without an error')));
  });
}

/** What an INVALID_ARGUMENT says: message, batchwise-field, and the google.rpc.Status detail. */
function read(e: grpc.ServiceError) {
  const [bin] = e.metadata.get(STATUS_DETAILS_KEY);
  const status = decodeStatus(bin as Buffer);
  expect(status.details.map((d) => d.typeUrl)).toEqual([BAD_REQUEST_TYPE]);
  return { code: e.code, details: e.details, field: e.metadata.get('batchwise-field')[0], status: { code: status.code, message: status.message }, violations: decodeBadRequest(status.details[0].value) };
}

describe('google.rpc.BadRequest in grpc-status-details-bin', () => {
  let h: Harness;
  let raw: RawClient;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1, maxScenariosPerBatch: 3 } });
    raw = rawClient(h.server.address);
  });
  afterAll(async () => {
    raw?.close();
    await h?.close();
  });

  it('a bad scenario in Solve (streaming): the message and batchwise-field as before, and the BadRequest naming the field', async () => {
    const e = await streamError(raw.Solve({ scenario: { ...specScenario(2500, 0), maxBatchSize: 0 } }));
    const reason = 'must be ≥ 1 (got 0)';
    expect(read(e)).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: `scenario.maxBatchSize: ${reason}`,
      field: 'scenario.maxBatchSize',
      status: { code: 3, message: `scenario.maxBatchSize: ${reason}` },
      violations: [{ field: 'scenario.maxBatchSize', description: reason }],
    });
    // BatchwiseClient still reads it as a ScenarioError on the field.
    const err = await h.client().solve({ ...specScenario(2500, 0), maxBatchSize: 0 }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ScenarioError);
    expect(err).toMatchObject({ field: 'scenario.maxBatchSize', reason });
  });

  it('Evaluate (unary) and a SolveBatch over the server’s limit carry it too', async () => {
    const evalError = read(await unaryError((cb) => raw.Evaluate({ scenario: specScenario(2500, 0), policy: { table: { actions: [0, 0, 99] } } }, new grpc.Metadata(), {}, cb)));
    expect(evalError.violations).toEqual([{ field: 'policy.table.actions[2]', description: evalError.details.slice('policy.table.actions[2]: '.length) }]);
    const grid = read(await streamError(raw.SolveBatch({ grid: { base: specScenario(1000, 0), arrivalRate: [1, 2, 3, 4] } })));
    expect(grid).toMatchObject({ field: 'grid', violations: [{ field: 'grid', description: expect.stringMatching(/^gives 4 scenarios, above this server's maxScenariosPerBatch limit 3/) }] });
  });

  it('echoed input is cut: 100,000 characters come back as a bounded message, field and detail', async () => {
    const e = await unaryError((cb) => raw.Simulate({ scenario: specScenario(2500, 0), policy: `triton:${'é'.repeat(100_000)}` }, new grpc.Metadata(), { deadline: Date.now() + 20_000 }, cb));
    const r = read(e);
    expect(r.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(Buffer.byteLength(r.details)).toBeLessThanOrEqual(DETAIL_BOUNDS.message);
    expect(r.details).toMatch(/^policy: triton: parameter "é+…$/);
    expect(r.status.message).toBe(r.details);
    expect(r.violations[0].field).toBe('policy');
    expect((e.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer).length).toBeLessThan(2600);
    // The server's log line is bounded the same way.
    const logged = h.lines.filter((l) => l.rpc === 'Simulate' && l.code === 'INVALID_ARGUMENT').pop()!;
    expect(Buffer.byteLength(String(logged.details))).toBeLessThanOrEqual(DETAIL_BOUNDS.message);
    expect(JSON.stringify(logged).length).toBeLessThan(4000);
  });

  it('truncateUtf8 cuts at a character boundary; badRequestStatus encodes what decodeStatus reads', () => {
    expect(truncateUtf8('short', 10)).toBe('short');
    expect(truncateUtf8('ééééé', 7)).toBe('éé…');
    expect(truncateUtf8('a😀b', 6)).toBe('a😀b');
    expect(truncateUtf8('a😀bc', 6)).toBe('a…');
    const bin = badRequestStatus(3, 'x: bad', [{ field: 'x', description: 'bad' }]);
    const s = decodeStatus(bin);
    expect([s.code, s.message, s.details[0].typeUrl]).toEqual([3, 'x: bad', BAD_REQUEST_TYPE]);
    expect(decodeBadRequest(s.details[0].value)).toEqual([{ field: 'x', description: 'bad' }]);
  });

  it('a scenario file written with proto field names solves remotely as the JSON-named one (the client sends JSON names)', async () => {
    const s = specScenario(2500, 1e-4);
    const spelled = (v: unknown): unknown =>
      typeof v !== 'object' || v === null ? v : Object.fromEntries(Object.entries(v).map(([k, x]) => [protoName(k), spelled(x)]));
    const client = h.client();
    const camel = await client.solve(s);
    const snake = await client.solve(spelled(s));
    expect(snake.cached).toBe(true);
    expect(comparable(snake.result)).toEqual(comparable(camel.result));
  });
});
