import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../src/service/messages.js';
import { registerGpuProvider } from '../../src/solve/backends.js';
import { cpuPolicyIteration } from '../../src/solve/cpu/pi.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { DEFAULT_FLAGS } from '../../src/solve/gpu/flags.js';
import { createGpuProvider } from '../../src/solve/gpu/provider.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { scenarioOf } from '../classes/support.js';
import { classA, classB, twoClasses } from '../service/support/classes.js';
import { SPEC_CASES, specCaseScenario } from '../helpers/specTable.js';
import { specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from '../service/support/harness.js';
import { gpuForTests } from './gpuEnv.js';
import { expectSameAsCpu, expectSameClassesAsCpu } from './solveCompare.js';

const gpu = await gpuForTests();

/** A server for the tests of one describe block (where there is a GPU), shut down after them with the device. */
function serverForBlock(): () => Harness {
  let h: Harness | undefined;
  beforeAll(async () => {
    if (gpu.ctx) h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
  });
  afterAll(async () => {
    await h?.close();
    await releaseGpu();
  });
  return () => h!;
}

/** A counter's value (summed over its labels). */
async function total(counter: { get(): Promise<{ values: Array<{ value: number }> }> }): Promise<number> {
  return (await counter.get()).values.reduce((n, v) => n + v.value, 0);
}

describe(`gRPC end to end with backend GPU${gpu.skip}`, () => {
  const server = serverForBlock();

  it.skipIf(!gpu.ctx)('SolveBatch: spec cases on the device, certified in f64, GPU facts over the wire', async () => {
    const cases = SPEC_CASES.slice(0, 4);
    const scenarios = cases.map((c) => ({ ...specCaseScenario(c), solver: { backend: 'GPU' as const } }));
    const results: ScenarioResult[] = [];
    for await (const r of server().client().solveBatch({ list: { scenarios } })) results.push(r);
    expect(results.map((r) => r.index).sort()).toEqual([0, 1, 2, 3]);
    for (const r of results) {
      const c = cases[r.index];
      expect(r.error).toBeUndefined();
      const cpu = await solveScenario({ ...scenarios[r.index], solver: { backend: 'CPU' } });
      expectSameAsCpu(r.result!, cpu);
      expect(r.result!.solver.adapter).toBe(gpu.ctx!.adapterName);
      expect(Math.abs(r.result!.averageCost - c.g) / c.g).toBeLessThan(1e-9);
    }
  });

  it.skipIf(!gpu.ctx)('SolveBatch: classes scenarios with backend GPU beside a single-class one, through the WebGPU batch: each certifies its CPU solve; a second call answers them from the classes cache', async () => {
    const gpuSolver = { tolerance: 1e-9, backend: 'GPU' as const };
    const classes = [twoClasses, scenarioOf([{ ...classA, rate: 120, S: 12 }, { ...classB, S: 16 }], 40, 1e-3, 1e-9) as object].map((c) => ({ ...c, solver: gpuSolver }));
    const single = { ...specCaseScenario(SPEC_CASES[0]), solver: { backend: 'GPU' as const } };
    const list = [classes[0], single, classes[1]];
    const run = async (): Promise<Map<number, ScenarioResult>> => {
      const at = new Map<number, ScenarioResult>();
      for await (const r of server().client().solveBatch({ list: { scenarios: list } })) at.set(r.index, r);
      expect([...at.keys()].sort()).toEqual([0, 1, 2]);
      return at;
    };
    const first = await run();
    expectSameAsCpu(first.get(1)!.result!, await solveScenario({ ...single, solver: { backend: 'CPU' } }));
    for (const [k, i] of [0, 2].entries()) {
      const r = first.get(i)!;
      expect(r.error).toBeUndefined();
      const got = r.classesResult!;
      expect(got.solver).toMatchObject({ backend: 'webgpu', adapter: gpu.ctx!.adapterName });
      expect(got.solver.gpuIterations).toBeGreaterThan(0);
      const cpu = await solveClassesScenario({ ...classes[k], solver: { ...gpuSolver, backend: 'CPU' } });
      expectSameClassesAsCpu(got, cpu);
      expect(r.cached).toBe(false);
    }
    const again = await run();
    for (const i of [0, 2]) {
      expect(again.get(i)!.cached).toBe(true);
      expect(again.get(i)!.classesResult!.averageCostLower).toBe(first.get(i)!.classesResult!.averageCostLower);
    }
  }, 300_000);

  it.skipIf(!gpu.ctx)('SolveBatch: a classes scenario with backend AUTO joins the WebGPU batch where the AUTO rule sends its first box to the GPU (here: threshold 0), certified as its CPU solve', async () => {
    registerGpuProvider(createGpuProvider(cpuPolicyIteration, { flags: { ...DEFAULT_FLAGS, BATCHWISE_GPU_AUTO_MIN_WORK_SOFTWARE: 0, BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE: 0 } }));
    try {
      const scenario = { ...twoClasses, objective: { powerWeight: 2e-3 }, solver: { tolerance: 1e-9, backend: 'AUTO' as const } };
      const before = await total(server().server.metrics.gpuBatchScenarios);
      const results: ScenarioResult[] = [];
      for await (const r of server().client().solveBatch({ list: { scenarios: [scenario] } })) results.push(r);
      expect(results).toHaveLength(1);
      const got = results[0].classesResult!;
      // Its box ran in the collector's rounds (the main thread's batch), not on a worker.
      expect(await total(server().server.metrics.gpuBatchScenarios)).toBe(before + 1);
      expect(got.solver).toMatchObject({ backend: 'webgpu', adapter: gpu.ctx!.adapterName });
      expectSameClassesAsCpu(got, await solveClassesScenario({ ...scenario, solver: { ...scenario.solver, backend: 'CPU' } }));
    } finally {
      registerGpuProvider(undefined);
    }
  }, 300_000);

  it.skipIf(!gpu.ctx)('Solve: one scenario with backend GPU', async () => {
    const s = { ...specCaseScenario(SPEC_CASES[2]), solver: { backend: 'GPU' as const } };
    const { result } = await server().client().solve(s);
    expectSameAsCpu(result, await solveScenario({ ...s, solver: { backend: 'CPU' } }));
  });
});

/** The same object with its keys in reverse order, nested objects too: another spelling of the same scenario. */
function reversed(x: unknown): unknown {
  if (Array.isArray(x) || typeof x !== 'object' || x === null) return x;
  return Object.fromEntries(Object.entries(x).reverse().map(([k, v]) => [k, reversed(v)]));
}

describe(`SolveBatch with identical scenarios on the GPU${gpu.skip}`, () => {
  const server = serverForBlock();

  it.skipIf(!gpu.ctx)('each distinct scenario is put into the GPU rounds once and every copy gets its answer; scenarios one field apart are solved apart', async () => {
    const onGpu = { backend: 'GPU' as const };
    const a = { ...specScenario(1500, 1e-4), solver: onGpu };
    const b = { ...specScenario(2600, 1e-3), solver: onGpu };
    // b with one field changed (the arrival rate): another scenario, another answer.
    const c = { ...b, arrivalRate: 2601 };
    const pair = { ...twoClasses, solver: { tolerance: 1e-9, ...onGpu } };
    const list = [a, b, reversed(a), c, pair, a, b, reversed(pair)];
    const distinct = [a, b, c, pair];
    const copyOf = [0, 1, 0, 2, 3, 0, 1, 3];
    const metrics = server().server.metrics;
    const [scenariosBefore, sharedBefore, jobsBefore] = [await total(metrics.gpuBatchScenarios), await total(metrics.sharedSolves), await total(metrics.gpuBatchJobs)];
    const at = new Map<number, ScenarioResult>();
    // Cold solves: each equals its solve alone bit for bit (a warm start would change the sweeps).
    for await (const r of server().client().solveBatch({ list: { scenarios: list }, disableWarmStart: true })) at.set(r.index, r);
    expect([...at.keys()].sort()).toEqual(list.map((_, i) => i));
    expect(await total(metrics.gpuBatchScenarios)).toBe(scenariosBefore + distinct.length);
    expect(await total(metrics.sharedSolves)).toBe(sharedBefore + list.length - distinct.length);
    expect(await total(metrics.gpuBatchJobs)).toBeGreaterThanOrEqual(jobsBefore + distinct.length);
    const alone = [await solveScenario(a, { backend: 'GPU' }), await solveScenario(b, { backend: 'GPU' }), await solveScenario(c, { backend: 'GPU' })];
    const pairAlone = await solveClassesScenario({ ...pair, solver: { ...pair.solver, backend: 'CPU' } });
    for (const [i, k] of copyOf.entries()) {
      const r = at.get(i)!;
      expect(r.error).toBeUndefined();
      if (k === 3) {
        expectSameClassesAsCpu(r.classesResult!, pairAlone);
        expect(r.classesResult).toEqual(at.get(4)!.classesResult);
        continue;
      }
      const got = r.result!;
      expectSameAsCpu(got, alone[k]);
      expect(got.solver.gpuIterations).toBe(alone[k].solver.gpuIterations);
      expect([got.averageCost, got.averageCostLower, got.averageCostUpper]).toEqual([alone[k].averageCost, alone[k].averageCostLower, alone[k].averageCostUpper]);
      expect(got.policy.actions).toEqual(alone[k].policy.actions);
    }
    // b and c, one field apart, were not merged: each has its own answer.
    expect(at.get(3)!.result!.averageCost).not.toBe(at.get(1)!.result!.averageCost);
  }, 300_000);
});
