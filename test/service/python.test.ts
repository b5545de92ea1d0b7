import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonForTests, runPythonJson } from '../helpers/python.js';
import { startHarness, type Harness } from './support/harness.js';

/**
 * The service as an outsider sees it: a Python client (grpcio, protobuf) that has only the
 * server's address loads everything it needs over reflection (test/python/reflection_client.py).
 */
const py = pythonForTests();
const script = fileURLToPath(new URL('../python/reflection_client.py', import.meta.url));
const scenarioFile = fileURLToPath(new URL('../../examples/scenario.json', import.meta.url));

interface Report {
  services: string[];
  files: string[];
  solve: { input: string; output: string; serverStreaming: boolean };
  solveBatch: { input: string; output: string; serverStreaming: boolean };
  descriptor: {
    mapEntry: string;
    mapEntryOption: boolean;
    solverFields: Array<[string, string]>;
    seedOneof: string;
    seedProto3Optional: boolean;
    comments: number;
    trailingComments: number;
    solveComment: string | null;
  };
  solveResult: { updates: number; done: boolean; averageCost: number; controlLimit: number; json: Record<string, unknown> };
  batch: Array<[number, number, string, number]>;
  invalid: Failure | null;
  huge: Failure | null;
}

interface Failure {
  code: string;
  details: string;
  field: string;
  trailerBytes: number;
  status: { code: number; message: string; typeUrl: string };
  violations: Array<[string, string]>;
}

describe(`a Python client with only the address${py.skip}`, () => {
  let h: Harness | undefined;
  let report: Report;
  beforeAll(async () => {
    if (!py.python) return;
    h = await startHarness({ limits: { maxConcurrentSolves: 2 } });
    report = (await runPythonJson(py.python, script, [h.server.address, scenarioFile])) as Report;
  });
  afterAll(async () => h?.close());

  it.skipIf(!py.python)('lists the services and loads their descriptors, with imports, into its own pool', () => {
    expect(report.services).toEqual([
      'batchwise.v1.BatchingPolicy',
      'grpc.health.v1.Health',
      'grpc.reflection.v1.ServerReflection',
      'grpc.reflection.v1alpha.ServerReflection',
    ]);
    expect(report.files).toEqual(['batchwise/v1/batchwise.proto', 'google/protobuf/any.proto', 'google/rpc/error_details.proto', 'google/rpc/status.proto']);
    expect(report.solve).toEqual({ input: 'batchwise.v1.SolveRequest', output: 'batchwise.v1.SolveUpdate', serverStreaming: true });
    expect(report.solveBatch).toEqual({ input: 'batchwise.v1.SolveBatchRequest', output: 'batchwise.v1.ScenarioResult', serverStreaming: true });
  });

  it.skipIf(!py.python)('gets descriptors as protoc makes them: map entries, json_name, synthetic oneofs, comments', () => {
    const d = report.descriptor;
    expect(d.mapEntry).toBe('batchwise.v1.AcceleratorGroup.ServiceTimeEntry');
    expect(d.mapEntryOption).toBe(true);
    expect(d.solverFields).toEqual([
      ['max_queue', 'maxQueue'],
      ['tolerance', 'tolerance'],
      ['max_iterations', 'maxIterations'],
      ['backend', 'backend'],
      ['method', 'method'],
    ]);
    expect(d.seedOneof).toBe('_seed');
    expect(d.seedProto3Optional).toBe(true);
    expect(d.comments).toBeGreaterThan(20);
    expect(d.trailingComments).toBeGreaterThan(150);
    expect(d.solveComment).toBe('Progress at a bounded rate, then exactly one update with done = true and the result.');
  });

  it.skipIf(!py.python)('calls Solve (server streaming) and SolveBatch with messages built from the pool', async () => {
    const r = report.solveResult;
    expect(r.done).toBe(true);
    expect(r.updates).toBeGreaterThanOrEqual(1);
    const local = await h!.client().solve(JSON.parse(readFileSync(scenarioFile, 'utf8')));
    expect(r.averageCost).toBe(local.result.averageCost);
    expect(r.controlLimit).toBe(local.result.policy.controlLimit);
    expect((r.json.policy as Record<string, unknown>).controlLimit).toBe(local.result.policy.controlLimit);
    expect(report.batch.map(([i, rate, outcome]) => [i, rate, outcome])).toEqual([
      [0, 1000, 'result'],
      [1, 2000, 'result'],
    ]);
  });

  it.skipIf(!py.python)('gets INVALID_ARGUMENT for a bad scenario, with a google.rpc.BadRequest naming the field', () => {
    const bad = report.invalid!;
    expect(bad.code).toBe('INVALID_ARGUMENT');
    expect(bad.field).toBe('scenario.serviceTime.cv');
    expect(bad.details).toMatch(/^scenario\.serviceTime\.cv: must be ≥ 0.000001 \(got -1\)/);
    expect(bad.status).toEqual({ code: 3, message: bad.details, typeUrl: 'type.googleapis.com/google.rpc.BadRequest' });
    expect(bad.violations).toEqual([['scenario.serviceTime.cv', bad.details.slice('scenario.serviceTime.cv: '.length)]]);
  });

  it.skipIf(!py.python)('a refusal that echoes 100,000 characters of input arrives, its trailers bounded (C-core takes 8 KB)', () => {
    const huge = report.huge!;
    expect(huge.code).toBe('INVALID_ARGUMENT');
    expect(huge.field).toBe('policy');
    expect(huge.details).toMatch(/^policy: triton: parameter "éééé.*…$/);
    expect(Buffer.byteLength(huge.details)).toBeLessThanOrEqual(1024);
    expect(huge.status.message).toBe(huge.details);
    expect(huge.violations[0][0]).toBe('policy');
    expect(huge.trailerBytes).toBeLessThan(8192);
  });
});
