import { afterAll, describe, expect, it } from 'vitest';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { SPEC_CASES, specCaseName, specCaseScenario } from '../helpers/specTable.js';
import { gpuForTests } from './gpuEnv.js';
import { expectSameAsCpu } from './solveCompare.js';

const gpu = await gpuForTests();
afterAll(releaseGpu);

describe(`docs/model.md §6 table on the GPU (f32 MPI + f64 polish) equals the CPU${gpu.skip}`, () => {
  for (const c of SPEC_CASES) {
    it.skipIf(!gpu.ctx)(specCaseName(c), async () => {
      const onGpu = await solveScenario(specCaseScenario(c), { backend: 'GPU' });
      const onCpu = await solveScenario(specCaseScenario(c), { backend: 'CPU' });
      expectSameAsCpu(onGpu, onCpu);
      expect(onGpu.solver.adapter).toBe(gpu.ctx!.adapterName);
      // And the published reference (12 significant digits).
      expect(Math.abs(onGpu.averageCost - c.g) / c.g).toBeLessThan(1e-9);
      expect(onGpu.policy.controlLimit).toBe(c.controlLimit);
      expect(onGpu.averageCostUpper - onGpu.averageCostLower).toBeLessThanOrEqual(1e-9 * onGpu.averageCostLower);
    });
  }
});
