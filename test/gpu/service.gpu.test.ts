import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../src/service/messages.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { SPEC_CASES, specCaseScenario } from '../helpers/specTable.js';
import { startHarness, type Harness } from '../service/support/harness.js';
import { gpuForTests } from './gpuEnv.js';
import { expectSameAsCpu } from './solveCompare.js';

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

  it.skipIf(!gpu.ctx)('Solve: one scenario with backend GPU', async () => {
    const s = { ...specCaseScenario(SPEC_CASES[2]), solver: { backend: 'GPU' as const } };
    const { result } = await h!.client().solve(s);
    expectSameAsCpu(result, await solveScenario({ ...s, solver: { backend: 'CPU' } }));
  });
});
