import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descriptorFiles } from '../../src/service/reflection.js';
import { decodeFields } from '../../src/service/rpc/wire.js';
import { specScenario } from '../helpers/scenarios.js';
import { sample, startHarness, type Harness } from './support/harness.js';

type Ctor = grpc.ServiceClientConstructor;

function healthClient(address: string) {
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, { enums: String })) as unknown as { grpc: { health: { v1: { Health: Ctor } } } };
  return new pkg.grpc.health.v1.Health(address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    Check(req: { service: string }, cb: (e: grpc.ServiceError | null, r?: { status: string }) => void): void;
  };
}

function reflectionClient(address: string) {
  const root = join(dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')), 'build', 'proto');
  const def = protoLoader.loadSync('grpc/reflection/v1/reflection.proto', { includeDirs: [root], keepCase: true, oneofs: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { grpc: { reflection: { v1: { ServerReflection: Ctor } } } };
  return new pkg.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    ServerReflectionInfo(): grpc.ClientDuplexStream<Record<string, unknown>, Record<string, unknown>>;
  };
}

/** One request on the reflection stream, one answer. */
function reflect(address: string, request: Record<string, unknown>): Promise<Record<string, unknown>> {
  const client = reflectionClient(address);
  const call = client.ServerReflectionInfo();
  return new Promise((resolve, reject) => {
    call.on('data', (d: Record<string, unknown>) => {
      resolve(d);
      call.end();
      client.close();
    });
    call.on('error', reject);
    call.write(request);
  });
}

describe('operations: health, reflection, metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1 }, metricsPort: 0 });
  });
  afterAll(async () => h?.close());

  it('grpc.health.v1.Health answers SERVING for the server and for BatchingPolicy, NOT_FOUND otherwise', async () => {
    const client = healthClient(h.server.address);
    const check = (service: string) =>
      new Promise<{ status?: string; code?: number }>((resolve) =>
        client.Check({ service }, (e, r) => resolve(e ? { code: e.code } : { status: r?.status })),
      );
    expect(await check('')).toEqual({ status: 'SERVING' });
    expect(await check('batchwise.v1.BatchingPolicy')).toEqual({ status: 'SERVING' });
    expect(await check('no.such.Service')).toEqual({ code: grpc.status.NOT_FOUND });
    client.close();
  });

  it('server reflection lists the services and returns the descriptor of BatchingPolicy', async () => {
    const list = await reflect(h.server.address, { list_services: '' });
    const names = ((list.list_services_response as { service: Array<{ name: string }> }).service ?? []).map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['batchwise.v1.BatchingPolicy', 'grpc.health.v1.Health']));
    const file = await reflect(h.server.address, { file_containing_symbol: 'batchwise.v1.BatchingPolicy' });
    const protos = (file.file_descriptor_response as { file_descriptor_proto: Buffer[] }).file_descriptor_proto;
    const text = Buffer.concat(protos).toString('latin1');
    for (const m of ['SolveBatch', 'SolveUpdate', 'ScenarioResult', 'EvaluateRequest']) expect(text).toContain(m);
  });

  it('server reflection serves the files protoc compiled (proto/descriptors.binpb) byte for byte, each with its imports', async () => {
    const files = new Map(descriptorFiles().map((f) => [String(decodeFields(f).find((x) => x.no === 1)!.value), f]));
    expect([...files.keys()]).toEqual([
      'batchwise/v1/batchwise.proto',
      'google/protobuf/any.proto',
      'google/rpc/status.proto',
      'google/rpc/error_details.proto',
      'grpc/health/v1/health.proto',
      'grpc/reflection/v1/reflection.proto',
      'grpc/reflection/v1alpha/reflection.proto',
    ]);
    const served = async (request: Record<string, unknown>) =>
      ((await reflect(h.server.address, request)).file_descriptor_response as { file_descriptor_proto: Buffer[] }).file_descriptor_proto;
    expect(await served({ file_by_filename: 'batchwise/v1/batchwise.proto' })).toEqual([files.get('batchwise/v1/batchwise.proto')]);
    expect(await served({ file_containing_symbol: 'google.rpc.Status' })).toEqual([files.get('google/rpc/status.proto'), files.get('google/protobuf/any.proto')]);
    expect(await served({ file_containing_symbol: 'grpc.health.v1.Health' })).toEqual([files.get('grpc/health/v1/health.proto')]);
    const list = await reflect(h.server.address, { list_services: '*' });
    expect((list.list_services_response as { service: Array<{ name: string }> }).service.map((s) => s.name).sort()).toEqual([
      'batchwise.v1.BatchingPolicy',
      'grpc.health.v1.Health',
      'grpc.reflection.v1.ServerReflection',
      'grpc.reflection.v1alpha.ServerReflection',
    ]);
  });

  it('a metrics scrape counts RPCs by method and status (grpc_server_*), solves, cache hits, and shows nothing in flight', async () => {
    const client = h.client();
    const s = specScenario(2500, 1e-4);
    let solvedUpdates = 0;
    const onSolved = () => solvedUpdates++;
    const first = await client.solve(s, { onSolved });
    const second = await client.solve(s, { onSolved });
    await client.solve({ ...s, maxBatchSize: 0 }).catch(() => undefined);
    const res = await fetch(`http://127.0.0.1:${h.server.metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    const solve = { grpc_service: 'batchwise.v1.BatchingPolicy', grpc_method: 'Solve', grpc_type: 'server_stream' };
    expect(sample(text, 'grpc_server_started_total', solve)).toBe(3);
    expect(sample(text, 'grpc_server_handled_total', { ...solve, grpc_code: 'OK' })).toBe(2);
    expect(sample(text, 'grpc_server_handled_total', { ...solve, grpc_code: 'InvalidArgument' })).toBe(1);
    // Every method's series exists from the start (go-grpc-prometheus' InitializeMetrics).
    expect(sample(text, 'grpc_server_handled_total', { grpc_method: 'Evaluate', grpc_type: 'unary', grpc_code: 'OK' })).toBe(0);
    // Each solve's progress updates, the first one's certified result ahead of its percentiles (the
    // second is answered from the cache with them), and each final update; the refused call sent nothing.
    expect(solvedUpdates).toBe(1);
    expect(sample(text, 'grpc_server_msg_sent_total', solve)).toBe(first.progressUpdates + second.progressUpdates + solvedUpdates + 2);
    expect(sample(text, 'batchwise_solves_total', { backend: 'cpu' })).toBe(1);
    expect(sample(text, 'batchwise_solve_duration_seconds_count', { backend: 'cpu' })).toBe(1);
    expect(sample(text, 'batchwise_cache_hits_total')).toBe(1);
    expect(sample(text, 'batchwise_cache_misses_total')).toBe(1);
    expect(sample(text, 'batchwise_solves_in_flight')).toBe(0);
    expect(sample(text, 'batchwise_solves_queued')).toBe(0);
    expect(sample(text, 'grpc_server_handling_seconds_count', solve)).toBe(3);
    expect((await fetch(`http://127.0.0.1:${h.server.metricsPort}/other`)).status).toBe(404);
  });
});

describe('operations that are a choice: reflection off, metrics on loopback under TLS', () => {
  it('without reflection the reflection service is UNIMPLEMENTED and the log says so', async () => {
    const off = await startHarness({ limits: { maxConcurrentSolves: 1 }, reflection: false });
    try {
      const e = await reflect(off.server.address, { list_services: '' }).catch((x: unknown) => x);
      expect((e as grpc.ServiceError).code).toBe(grpc.status.UNIMPLEMENTED);
      expect(off.lines.find((l) => l.msg === 'batchwise serving')?.reflection).toBe(false);
    } finally {
      await off.close();
    }
  });

  it('with TLS the plain-HTTP metrics listen on loopback unless a host is given', async () => {
    const { generate } = await import('selfsigned');
    const pems = await generate([{ name: 'commonName', value: 'batchwise-test' }], { keyType: 'ec', algorithm: 'sha256' });
    const tls = { cert: Buffer.from(pems.cert), key: Buffer.from(pems.private) };
    const a = await startHarness({ limits: { maxConcurrentSolves: 1 }, host: '0.0.0.0', tls, metricsPort: 0 });
    const b = await startHarness({ limits: { maxConcurrentSolves: 1 }, host: '0.0.0.0', tls, metricsPort: 0, metricsHost: '0.0.0.0' });
    try {
      const serving = (h: Harness) => h.lines.find((l) => l.msg === 'batchwise serving')!;
      expect(serving(a).metricsHost).toBe('127.0.0.1');
      expect(serving(b).metricsHost).toBe('0.0.0.0');
      const body = await (await fetch(`http://127.0.0.1:${String(serving(a).metricsPort)}/metrics`)).text();
      expect(body).toContain('grpc_server_started_total');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
