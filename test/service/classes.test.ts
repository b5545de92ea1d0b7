import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { RemoteError } from '../../src/service/client.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { scenarioOf } from '../classes/support.js';
import { autoClasses, classA as a, classB as b, comparableClasses as comparable, twoClasses } from './support/classes.js';
import { sample, startHarness, type Harness } from './support/harness.js';

/**
 * Solve of multi-class scenarios (docs/model.md §10) over gRPC, against a real server: the
 * result equals the in-process solve of the same scenario; refusals are INVALID_ARGUMENT naming
 * the field; the joint state count is held to maxStates as the automatic box grows. (SolveBatch
 * with classes: classesBatch.test.ts.)
 */

/** The refusal of a call: the client turns INVALID_ARGUMENT with a field into a ScenarioError (client.ts fromGrpcError), any other code into a RemoteError. */
async function refusal(p: Promise<unknown>): Promise<{ code: number; field?: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ScenarioError) return { code: grpc.status.INVALID_ARGUMENT, field: e.field, message: e.message };
    if (e instanceof RemoteError) return { code: e.code, field: e.field, message: e.details };
    throw e;
  }
  throw new Error('accepted');
}

describe('Solve with classes over gRPC', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1 }, metricsPort: 0 });
  });
  afterAll(async () => h?.close());

  it('a two-class scenario: the same policy table, compact form and figures as the in-process solve; progress carries the box', async () => {
    const progress: number[][] = [];
    const [remote, local] = await Promise.all([
      h.client().solveClasses(twoClasses, { progressIntervalMs: 10, onProgress: (p) => progress.push(p.classMaxQueue ?? []) }),
      solveClassesScenario(twoClasses),
    ]);
    expect(comparable(remote.result)).toEqual(comparable(local));
    expect(remote.result.policy.serveClass).toHaveLength(19 * 15);
    // No per-class percentiles for several classes: the reason travels instead (a proto field of its own).
    expect(local.latencyUnavailable).toMatch(/several classes/);
    expect(remote.result.latencyUnavailable).toBe(local.latencyUnavailable);
    expect(remote.result.policy.switchingCurve).toHaveLength(19);
    // Progress at 10 ms over a solve of about a second: some arrives, each naming the fixed box.
    expect(progress.length).toBeGreaterThan(0);
    for (const box of progress) expect(box).toEqual([18, 14]);
  }, 60_000);

  it('examples/two-classes.json with proto field names: the same result as the in-process solve of the file', async () => {
    const file = JSON.parse(readFileSync('examples/two-classes.json', 'utf8')) as { classes: Array<Record<string, unknown>> };
    // proto names for the class fields (the client puts them into JSON names before they go out).
    const spelled = { ...file, classes: file.classes.map(({ arrivalRate, maxBatchSize, latencyWeight, ...rest }) => ({ ...rest, arrival_rate: arrivalRate, max_batch_size: maxBatchSize, latency_weight: latencyWeight })) };
    const [remote, local] = await Promise.all([h.client().solveClasses(spelled), solveClassesScenario(file)]);
    expect(comparable(remote.result)).toEqual(comparable(local));
    // A control limit of "never" would travel as 0: these are served alone from a count ≥ 1.
    expect(remote.result.policy.controlLimits.every((v) => v !== null && v >= 1)).toBe(true);
  }, 120_000);

  it('a scenario solved before comes from the classes cache, however it is spelled: cached, the same result, no progress', async () => {
    type Spelled = { classes: Array<Record<string, unknown>>; objective: Record<string, unknown> };
    const scenario = scenarioOf([{ ...a, rate: 140, S: 18 }, { ...b, S: 14 }], 40, 2e-4, 1e-9) as Spelled;
    const first = await h.client().solveClasses(scenario);
    expect(first.cached).toBe(false);
    // proto field names for the rates: another spelling of the same scenario
    const respelled = { ...scenario, classes: scenario.classes.map(({ arrivalRate, ...rest }) => ({ ...rest, arrival_rate: arrivalRate })) };
    const again = await h.client().solveClasses(respelled, { progressIntervalMs: 10 });
    expect(again.cached).toBe(true);
    expect(again.progressUpdates).toBe(0);
    expect(again.result).toEqual(first.result);
    // A different weight is a different scenario.
    const other = await h.client().solveClasses({ ...scenario, objective: { powerWeight: 3e-4 } });
    expect(other.cached).toBe(false);
    expect(other.result.averageCost).not.toBe(first.result.averageCost);
  }, 120_000);

  it('concurrent identical classes solves, spelled differently, share one solve: the same result for every caller', async () => {
    type Spelled = { classes: Array<Record<string, unknown>>; objective: Record<string, unknown> };
    const scenario = scenarioOf([{ ...a, rate: 150, S: 16 }, { ...b, S: 12 }], 40, 3e-4, 1e-9) as Spelled;
    const respelled = { ...scenario, classes: scenario.classes.map(({ arrivalRate, ...rest }) => ({ ...rest, arrival_rate: arrivalRate })) };
    const metrics = async () => fetch(`http://127.0.0.1:${h.server.metricsPort}/metrics`).then((r) => r.text());
    const before = sample(await metrics(), 'batchwise_shared_solves_total') ?? 0;
    const answers = await Promise.all([h.client().solveClasses(scenario), h.client().solveClasses(respelled), h.client().solveClasses(scenario)]);
    const after = sample(await metrics(), 'batchwise_shared_solves_total') ?? 0;
    // The first starts the solve; the other two join it, or (had it finished first) find it in the cache: never a second solve.
    expect(after - before + answers.filter((x) => x.cached).length).toBe(2);
    for (const x of answers.slice(1)) expect(x.result).toEqual(answers[0].result);
  }, 120_000);

  it('a new classes solve starts from the last solved scenario of its shape: warm-started, the same certified optimum as a cold solve, fewer sweeps', async () => {
    // A shape no other test here uses (B = 4 and 1, deterministic), automatic boxes.
    const shape = [{ ...a, B: 4, rate: 160 }, { ...b, B: 1, law: 'DETERMINISTIC' as const, rate: 60 }];
    const first = await h.client().solveClasses(scenarioOf(shape, 40, 1e-3, 1e-9));
    expect(first.warmStarted).toBe(false);
    const neighbour = scenarioOf(shape.map((k, i) => (i === 0 ? { ...k, rate: 170 } : k)), 40, 1.1e-3, 1e-9);
    const [warm, cold] = await Promise.all([h.client().solveClasses(neighbour), solveClassesScenario(neighbour)]);
    expect(warm.warmStarted).toBe(true);
    expect(warm.cached).toBe(false);
    // Both certified to 1e-9 relative: each interval holds the other's optimum.
    const tol = 1e-9 * cold.averageCostUpper;
    expect(warm.result.averageCostLower).toBeLessThanOrEqual(cold.averageCostUpper + tol);
    expect(warm.result.averageCostUpper).toBeGreaterThanOrEqual(cold.averageCostLower - tol);
    expect(warm.result.solver.totalIterations).toBeLessThan(cold.solver.totalIterations);
    // Another shape (a different B) starts cold.
    const other = await h.client().solveClasses(scenarioOf(shape.map((k, i) => (i === 1 ? { ...k, B: 3 } : k)), 40, 1e-3, 1e-9));
    expect(other.warmStarted).toBe(false);
  }, 120_000);

  it('one class: the single-class solve it restates comes along', async () => {
    const one = scenarioOf([{ ...a, rate: 400 }], 40, 1e-3, 1e-9);
    const [remote, local] = await Promise.all([h.client().solveClasses(one), solveClassesScenario(one)]);
    expect(remote.result.single).toBeDefined();
    expect(remote.result.single!.latency!.p99).toBe(local.single!.latency!.p99);
    expect(remote.result.latencyUnavailable).toBeUndefined();
    expect(comparable(remote.result)).toEqual(comparable(local));
  }, 60_000);

  it('a bad field of a class, a single-class field beside classes, an explicit box past maxStates: INVALID_ARGUMENT naming each', async () => {
    const s = twoClasses;
    const badWeight = { ...s, classes: [s.classes[0], { ...s.classes[1], latencyWeight: -1 }] };
    const e1 = await refusal(h.client().solveClasses(badWeight));
    expect(e1.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(e1.field).toBe('scenario.classes[1].latencyWeight');
    const badLaw = { ...s, classes: [{ ...s.classes[0], serviceTime: { linear: { perItem: 0.001, base: 0.002 }, distribution: 'DETERMINISTIC', cv: 0.5 } }, s.classes[1]] };
    expect((await refusal(h.client().solveClasses(badLaw))).field).toBe('scenario.classes[0].serviceTime.cv');
    const mixed = { ...s, arrivalRate: 100 };
    const e2 = await refusal(h.client().solveClasses(mixed));
    expect(e2.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(e2.field).toBe('scenario.arrivalRate');
    const huge = { ...s, classes: [{ ...s.classes[0], maxQueue: 2000 }, { ...s.classes[1], maxQueue: 2000 }] };
    const e3 = await refusal(h.client().solveClasses(huge));
    expect(e3.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(e3.field).toBe('scenario.classes');
  }, 60_000);
});

describe('Solve with classes on a server with a small maxStates', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1, maxStates: 200 } });
  });
  afterAll(async () => h?.close());

  it('the automatic box passing the joint bound stops the solve with INVALID_ARGUMENT on scenario.classes, and frees the worker', async () => {
    const e = await refusal(h.client().solveClasses(autoClasses));
    expect(e.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(e.field).toBe('scenario.classes');
    expect(e.message).toMatch(/joint states .* above this server's maxStates = 200/);
    await h.jobEnd((j) => j.kind === 'classesSolve');
    expect(h.server.pool.stats().busy).toBe(0);
  }, 60_000);
});
