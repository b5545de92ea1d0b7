import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sweepWork } from '../../src/model/classes/bellman.js';
import { compileClasses } from '../../src/model/classes/compile.js';
import { prepareScenarios } from '../../src/service/batch/prepare.js';
import { DEFAULT_LIMITS } from '../../src/service/config.js';
import { autoJointStage, registerGpuProvider } from '../../src/solve/backends.js';
import { firstBox } from '../../src/solve/classes/firstBox.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { gpuPaysOff } from '../../src/solve/gpu/autoRule.js';
import { DEFAULT_FLAGS } from '../../src/solve/gpu/flags.js';
import type { GpuProvider } from '../../src/solve/types.js';
import type { ScenarioResult } from '../../src/service/messages.js';
import { acquireGpu } from '../../src/solve/gpu/device.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from './support/harness.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { validateScenario } from '../../src/model/validate.js';
import { CpuBatchExecutor } from '../../src/service/batch/cpuExecutor.js';
import { routeTasks, type BatchTask, type ClassesBatchTask } from '../../src/service/batch/executor.js';
import { GpuBatchExecutor } from '../../src/service/batch/gpuExecutor.js';
import type { SolveCoordinator } from '../../src/service/solving/coordinator.js';
import { scenarioOf } from '../classes/support.js';
import { autoClasses, classA, twoClasses } from './support/classes.js';

/** Whether this process can open a WebGPU adapter (CI: Mesa's software rasteriser, BATCHWISE_GPU=required). */
async function gpuAvailable(): Promise<boolean> {
  try {
    return (await acquireGpu()) !== undefined;
  } catch {
    return false;
  }
}

describe('backend GPU: Solve and SolveBatch run on the device in the server’s main thread', () => {
  let h: Harness;
  let gpu: boolean;
  beforeAll(async () => {
    gpu = await gpuAvailable();
    h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
  });
  afterAll(async () => h?.close());

  it('GPU scenarios come back from the GPU with the CPU answer (or, without an adapter, as errors naming solver.backend); CPU ones from the pool', async () => {
    const onGpu = [1000, 2500, 4000].map((l) => ({ ...specScenario(l, 1e-4), solver: { backend: 'GPU' as const } }));
    const onCpu = { ...specScenario(1800, 1e-3), solver: { backend: 'CPU' as const } };
    const results: ScenarioResult[] = [];
    for await (const r of h.client().solveBatch({ list: { scenarios: [...onGpu, onCpu] } })) results.push(r);
    const byIndex = new Map(results.map((r) => [r.index, r]));
    expect(results).toHaveLength(4);
    expect(byIndex.get(3)!.result!.solver.backend).toBe('cpu');
    for (let i = 0; i < 3; i++) {
      const r = byIndex.get(i)!;
      if (!gpu) {
        console.info('no WebGPU adapter here: checking the refusal path only');
        expect(r.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'solver.backend' });
        continue;
      }
      const cpu = await solveScenario({ ...onGpu[i], solver: { backend: 'CPU' } });
      expect(r.result!.solver.backend).toBe('webgpu');
      expect(Math.abs(r.result!.averageCost - cpu.averageCost) / cpu.averageCost).toBeLessThan(1e-9);
      expect(r.result!.policy.controlLimit).toBe(cpu.policy.controlLimit);
    }
  });

  it('a single Solve with backend GPU runs on the GPU with the CPU answer (or is refused naming solver.backend)', async () => {
    const s = { ...specScenario(3000, 1e-3), solver: { backend: 'GPU' as const } };
    const out = await h
      .client()
      .solve(s)
      .then((r) => ({ r }), (e: unknown) => ({ e }));
    if (!gpu) {
      expect(out).toMatchObject({ e: { field: 'scenario.solver.backend' } });
      return;
    }
    const cpu = await solveScenario({ ...s, solver: { backend: 'CPU' } });
    const r = (out as { r: { result: typeof cpu } }).r.result;
    expect(r.solver.backend).toBe('webgpu');
    expect(Math.abs(r.averageCost - cpu.averageCost) / cpu.averageCost).toBeLessThan(1e-9);
    expect(r.policy.controlLimit).toBe(cpu.policy.controlLimit);
  });
});

describe('SolveBatch routing', () => {
  it('backend-GPU scenarios with two or more classes go to the WebGPU batch with the single-class GPU ones; one class, AUTO ones without a first box and CPU ones stay on the pool', async () => {
    const gpu = new GpuBatchExecutor();
    const pool = new CpuBatchExecutor({} as SolveCoordinator, () => 1);
    const task = (index: number, backend: 'GPU' | 'CPU'): BatchTask => {
      const input = { ...specScenario(1000, 1e-4), solver: { backend } };
      return { index, scenario: validateScenario(input), key: String(index), input };
    };
    const classes = (index: number, raw: object, backend: 'GPU' | 'AUTO' | 'CPU'): ClassesBatchTask => ({ index, scenario: validateClassesScenario({ ...raw, solver: { backend } }) });
    const oneClass = scenarioOf([{ ...classA, S: 10 }], 40, 1e-3) as object;
    const groups = await routeTasks(
      [task(0, 'GPU'), task(1, 'CPU')],
      [gpu],
      pool,
      [classes(2, twoClasses, 'GPU'), classes(3, twoClasses, 'AUTO'), classes(4, oneClass, 'GPU'), classes(5, twoClasses, 'CPU')],
    );
    const of = (e: object) => groups.find((g) => g.executor === e)!;
    expect([of(gpu).tasks.map((t) => t.index), of(gpu).classes.map((t) => t.index)]).toEqual([[0], [2]]);
    expect([of(pool).tasks.map((t) => t.index), of(pool).classes.map((t) => t.index)]).toEqual([[1], [3, 4, 5]]);
    // An executor with classes only still gets its group.
    expect((await routeTasks([], [gpu], pool, [classes(0, twoClasses, 'GPU')])).map((g) => [g.executor.name, g.tasks.length, g.classes.length])).toEqual([['webgpu-batch', 0, 1]]);
  });
});

describe('SolveBatch routing of AUTO scenarios with classes: by the AUTO rule on the box a single Solve starts from', () => {
  const pool = new CpuBatchExecutor({} as SolveCoordinator, () => 1);
  const gpu = new GpuBatchExecutor();
  afterEach(() => registerGpuProvider(undefined));
  const auto = { tolerance: 1e-9, backend: 'AUTO' as const };
  // Fixed boxes (18, 14), and automatic ones.
  const small = { ...twoClasses, solver: auto };
  const large = { ...(autoClasses as object), solver: auto };
  /** The tasks as SolveBatch builds them: validated, and their first box's work, on the pool's prepare job. */
  const prepared = () =>
    prepareScenarios([small, large], DEFAULT_LIMITS).map((p, index): ClassesBatchTask => {
      if (!p.ok || !p.classes) throw new Error('expected a valid classes scenario');
      return { index, scenario: p.classes, ...(p.firstBoxWork !== undefined ? { firstBoxWork: p.firstBoxWork } : {}) };
    });
  const routed = async (tasks: readonly ClassesBatchTask[]) => {
    const groups = await routeTasks([], [gpu], pool, tasks);
    return Object.fromEntries(groups.map((g) => [g.executor.name, g.classes.map((t) => t.index)]));
  };

  it('the work routed by is that of the first box the solve itself runs', async () => {
    const [, task] = prepared();
    const solved = await solveClassesScenario({ ...large, solver: { ...auto, backend: 'CPU' } });
    const first = solved.solver.maxQueueTried![0];
    expect(task.firstBoxWork).toBe(sweepWork(compileClasses(task.scenario.params, first)));
  });

  it('with BATCHWISE_GPU=off no first box is weighed (no adapter is asked for), and both stay on the pool', async () => {
    const before = process.env.BATCHWISE_GPU;
    process.env.BATCHWISE_GPU = 'off';
    try {
      const tasks = prepared();
      expect(tasks.map((t) => t.firstBoxWork)).toEqual([undefined, undefined]);
      // Even a provider that would take any work gets none: without the work no AUTO task is routed to it.
      registerGpuProvider({ pays: async () => true, pick: async () => undefined, pickJoint: async () => undefined });
      expect(await routed(tasks)).toEqual({ 'cpu-pool': [0, 1] });
    } finally {
      if (before === undefined) delete process.env.BATCHWISE_GPU;
      else process.env.BATCHWISE_GPU = before;
    }
  });

  it('over the crossover to the WebGPU batch where an adapter is, under it to the pool; without an adapter both to the pool', async () => {
    const tasks = prepared();
    const [w0, w1] = tasks.map((t) => t.firstBoxWork!);
    expect(w0).toBeLessThan(w1);
    // A hardware adapter whose threshold lies between the two: the provider's own rule (autoRule.ts) decides.
    const flags = { ...DEFAULT_FLAGS, BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE: Math.sqrt(w0 * w1) };
    const withAdapter = (present: boolean): GpuProvider => ({
      pays: async (backend, work) => present && (backend === 'GPU' || gpuPaysOff(work, 'hardware', flags)),
      pick: async () => undefined,
      pickJoint: async () => undefined,
    });
    registerGpuProvider(withAdapter(true));
    expect(await routed(tasks)).toEqual({ 'cpu-pool': [0], 'webgpu-batch': [1] });
    registerGpuProvider(withAdapter(false));
    expect(await routed(tasks)).toEqual({ 'cpu-pool': [0, 1] });
    // In the batch each box is decided by the same rule: a box under the threshold gets no GPU stage.
    registerGpuProvider(withAdapter(true));
    const ran: number[] = [];
    const stage = autoJointStage(async (job) => {
      ran.push(job.model.states);
      return undefined;
    });
    const p = tasks[1].scenario.params;
    const boxes = [compileClasses(p, [4, 4]), compileClasses(p, firstBox(p))];
    expect(sweepWork(boxes[0])).toBeLessThan(flags.BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE);
    for (const model of boxes) await stage({ model, tolerance: 1e-9 });
    expect(ran).toEqual([boxes[1].states]);
    // The default provider with the GPU turned off: no adapter, and no device opened to find out.
    registerGpuProvider(undefined);
    const was = process.env.BATCHWISE_GPU;
    process.env.BATCHWISE_GPU = 'off';
    try {
      expect(await routed(tasks)).toEqual({ 'cpu-pool': [0, 1] });
    } finally {
      if (was === undefined) delete process.env.BATCHWISE_GPU;
      else process.env.BATCHWISE_GPU = was;
    }
  });
});
