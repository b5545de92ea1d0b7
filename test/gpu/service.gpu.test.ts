import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../src/service/messages.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { scenarioOf } from '../classes/support.js';
import { classA, classB, twoClasses } from '../service/support/classes.js';
import { SPEC_CASES, specCaseScenario } from '../helpers/specTable.js';
import { startHarness, type Harness } from '../service/support/harness.js';
import { gpuForTests } from './gpuEnv.js';
import { expectSameAsCpu, expectSameClassesAsCpu } from './solveCompare.js';

const gpu = await gpuForTests();

describe(`gRPC end to end with backend GPU${gpu.skip}`, () => {
  let h: Harness | undefined;
  beforeAll(async () => {
    if (gpu.ctx) h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
  });
  afterAll(async () => {
    await h?.close();
    await releaseGpu();
  });

  it.skipIf(!gpu.ctx)('SolveBatch: spec cases on the device, certified in f64, GPU facts over the wire', async () => {
    const cases = SPEC_CASES.slice(0, 4);
    const scenarios = cases.map((c) => ({ ...specCaseScenario(c), solver: { backend: 'GPU' as const } }));
    const results: ScenarioResult[] = [];
    for await (const r of h!.client().solveBatch({ list: { scenarios } })) results.push(r);
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
      for await (const r of h!.client().solveBatch({ list: { scenarios: list } })) at.set(r.index, r);
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

  it.skipIf(!gpu.ctx)('Solve: one scenario with backend GPU', async () => {
    const s = { ...specCaseScenario(SPEC_CASES[2]), solver: { backend: 'GPU' as const } };
    const { result } = await h!.client().solve(s);
    expectSameAsCpu(result, await solveScenario({ ...s, solver: { backend: 'CPU' } }));
  });
});
