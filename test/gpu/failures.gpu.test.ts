import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AbortError } from '../../src/model/errors.js';
import { registerGpuProvider } from '../../src/solve/backends.js';
import { cpuPolicyIteration } from '../../src/solve/cpu/pi.js';
import { solveScenariosOnGpu, type GpuBatchItem } from '../../src/solve/gpuBatch.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { gpuLogger, setGpuLogger } from '../../src/solve/gpu/log.js';
import { createGpuProvider } from '../../src/solve/gpu/provider.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { SPEC_CASES, specCaseScenario } from '../helpers/specTable.js';
import { gpuForTests } from './gpuEnv.js';
import { captureLogs, destroyAfterFirstSubmit, expectGpuOffRefuses } from './gpuTestHelpers.js';
import { expectSameAsCpu } from './solveCompare.js';

const gpu = await gpuForTests();
const defaultLogger = gpuLogger();
afterAll(releaseGpu);
afterEach(() => {
  registerGpuProvider(undefined);
  setGpuLogger(defaultLogger);
});

const CASE = specCaseScenario(SPEC_CASES[3]); // λ = 4000, w_pow = 1e-3: the slowest to converge in f32

describe(`GPU failures never fail a request${gpu.skip}`, () => {
  it.skipIf(!gpu.ctx)('a device lost mid-solve: the solve finishes on the CPU with the right answer, and the next one gets a new device', async () => {
    const logs = captureLogs();
    const hooks = destroyAfterFirstSubmit();
    registerGpuProvider(createGpuProvider(cpuPolicyIteration, { hooks }));
    const cpu = await solveScenario(CASE, { backend: 'CPU' });
    const r = await solveScenario(CASE, { backend: 'GPU' });
    expect(hooks.fired).toBeGreaterThanOrEqual(1);
    expectSameAsCpu(r, cpu, false);
    expect(r.solver.backend).toBe('cpu');
    expect(Math.abs(r.averageCost - SPEC_CASES[3].g) / SPEC_CASES[3].g).toBeLessThan(1e-9);
    const warned = logs.find((l) => l.msg === 'GPU stage failed; finishing the solve on the CPU');
    expect(warned?.level).toBe(40);
    expect(warned?.err?.message).toMatch(/device lost|destroyed|lost/i);
    // The manager noticed the loss: the next GPU solve runs on a fresh device.
    registerGpuProvider(createGpuProvider(cpuPolicyIteration));
    const again = await solveScenario(CASE, { backend: 'GPU' });
    expectSameAsCpu(again, cpu);
  });

  it.skipIf(!gpu.ctx)('a device lost mid-batch: every scenario of the round finishes on the CPU', async () => {
    const logs = captureLogs();
    const scenarios = SPEC_CASES.slice(0, 4).map(specCaseScenario);
    const items: GpuBatchItem[] = [];
    for await (const item of solveScenariosOnGpu(scenarios, { hooks: destroyAfterFirstSubmit() })) items.push(item);
    expect(items.length).toBe(4);
    for (const item of items) {
      if (!('result' in item)) throw 'error' in item ? item.error : new Error(`scenario ${item.index}: a multi-class result`);
      expect(item.result.solver.backend).toBe('cpu');
      expect(Math.abs(item.result.averageCost - SPEC_CASES[item.index].g) / SPEC_CASES[item.index].g).toBeLessThan(1e-9);
    }
    expect(logs.filter((l) => l.msg === 'GPU batch failed; finishing its scenarios on the CPU').length).toBe(1);
  });

  it.skipIf(!gpu.ctx)('a cancelled solve stops between GPU submits with AbortError (cancellation is not a GPU failure)', async () => {
    const ac = new AbortController();
    registerGpuProvider(createGpuProvider(cpuPolicyIteration, { hooks: { afterSubmit: () => ac.abort() } }));
    await expect(solveScenario(CASE, { backend: 'GPU', signal: ac.signal })).rejects.toBeInstanceOf(AbortError);
  });

  it('BATCHWISE_GPU=off refuses backend GPU with the reason, and AUTO uses the CPU', async () => {
    await expectGpuOffRefuses(CASE);
  });
});
