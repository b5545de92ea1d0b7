import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { classesStep, stepScratch } from '../../src/model/classes/bellman.js';
import { compileClasses, type ClassesModel } from '../../src/model/classes/compile.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { BackendUnavailableError, registerGpuProvider } from '../../src/solve/backends.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { cpuPolicyIteration } from '../../src/solve/cpu/pi.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { DEFAULT_FLAGS } from '../../src/solve/gpu/flags.js';
import { batchedJointRvi } from '../../src/solve/gpu/jointRvi.js';
import { gpuLogger, setGpuLogger } from '../../src/solve/gpu/log.js';
import { createGpuProvider } from '../../src/solve/gpu/provider.js';
import { buildRef } from '../classes/reference.js';
import { refOf, scenarioOf, type CaseClass } from '../classes/support.js';
import { rng } from '../helpers/random.js';
import { gpuForTests } from './gpuEnv.js';
import { captureLogs, destroyAfterFirstSubmit } from './gpuTestHelpers.js';
import { expectSameClassesAsCpu } from './solveCompare.js';

const gpu = await gpuForTests();
const defaultLogger = gpuLogger();
afterAll(releaseGpu);
afterEach(() => {
  registerGpuProvider(undefined);
  setGpuLogger(defaultLogger);
});

const det: CaseClass = { name: 'a', rate: 200, B: 4, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1 };
const TWO_DET = [det, { ...det, name: 'b', rate: 120, B: 3, perItem: 0.002, w: 2 }];
const TWO_RANDOM = [{ ...det, law: 'GAMMA' as const, cv: 0.5 }, { ...det, name: 'b', rate: 100, B: 3, law: 'EXPONENTIAL' as const, w: 0.5 }];
const THREE = [
  { ...det, rate: 90, B: 2 },
  { ...det, name: 'b', rate: 60, B: 2, perItem: 0.002, w: 2, law: 'GAMMA' as const, cv: 0.5 },
  { ...det, name: 'c', rate: 40, B: 2, perItem: 0.003, w: 0.5 },
];

function modelOf(cls: CaseClass[], S: number[], wPow = 1e-3): ClassesModel {
  return compileClasses(validateClassesScenario(scenarioOf(cls, 40, wPow)).params, S);
}

/** The src action index of a reference action code ([-1, 0] waits; [c, b] serves b of class c). */
function actionIndex(cls: CaseClass[], code: [number, number]): number {
  if (code[0] < 0) return 0;
  let a = 1;
  for (let c = 0; c < code[0]; c++) a += cls[c].B;
  return a + code[1] - 1;
}

interface SweepExpectation {
  readonly h: Float64Array;
  readonly gap: Float64Array;
  readonly best: Int32Array;
  /** How far the second-best action's value is above the best's (∞ with one action). */
  readonly margin: Float64Array;
}

/** One f64 Bellman step of the lumped model by the dense reference at start values. */
function referenceSweep(cls: CaseClass[], S: number[], seed: number): SweepExpectation {
  const ref = buildRef(refOf(cls), S, 40, 1e-3, 'lump');
  const r = rng(seed);
  const h = Float64Array.from(ref.coords, (v) => v.reduce((s, x) => s + 0.002 * x * x * (0.8 + 0.4 * r()) + 0.01 * x, 0));
  h[0] = 0;
  const gap = new Float64Array(ref.n);
  const best = new Int32Array(ref.n);
  const margin = new Float64Array(ref.n).fill(Infinity);
  for (let x = 0; x < ref.n; x++) {
    const order = ref.acts[x].map((a) => ({ v: a.cost + a.row.reduce((s, p, y) => s + p * h[y], 0), code: a.code })).sort((p, q) => p.v - q.v);
    gap[x] = order[0].v - h[x];
    best[x] = actionIndex(cls, order[0].code);
    if (order.length > 1) margin[x] = order[1].v - order[0].v;
  }
  return { h, gap, best, margin };
}

/** The CPU's f64 step at the same values (src/model/classes/bellman.ts, lumped). */
function cpuSweep(model: ClassesModel, h: Float64Array): { gap: Float64Array } {
  const gap = new Float64Array(model.states);
  classesStep(model, h, gap, new Int32Array(model.states), stepScratch(model), undefined, 'lump');
  return { gap };
}

describe(`the joint model's f32 stage on the GPU${gpu.skip}`, () => {
  it.skipIf(!gpu.ctx)('one Bellman sweep of a batch of three joint models (2 and 3 classes, product and mixture kernels, packed together) matches the independent dense reference (values, bounds, the greedy action clear of ties) and the CPU f64 step', async () => {
    const cases = [
      { cls: TWO_DET, S: [9, 7] },
      { cls: THREE, S: [4, 5, 3] },
      { cls: TWO_RANDOM, S: [8, 10] },
    ];
    const models = cases.map((c) => modelOf(c.cls, c.S));
    // The dense reference shares no code with src/; the CPU's f64 step is compared too (values and bounds).
    const expected = cases.map((c, i) => referenceSweep(c.cls, c.S, 11 + i));
    const cpu = cases.map((_, i) => cpuSweep(models[i], expected[i].h));
    const flags = { ...DEFAULT_FLAGS, BATCHWISE_GPU_EVAL_SWEEPS: 0, BATCHWISE_GPU_MAX_SWEEPS: 1, BATCHWISE_GPU_CYCLES_PER_CHECK: 1 };
    const out = await batchedJointRvi(gpu.ctx!, models.map((model, i) => ({ model, warm: { values: expected[i].h }, tolerance: 1e-9 })), { flags });
    expected.forEach(({ h, gap, best, margin }, i) => {
      const r = out[i];
      cpu[i].gap.forEach((g, x) => expect(Math.abs(g - gap[x])).toBeLessThan(1e-12 * (1 + Math.abs(gap[x]))));
      expect(r.sweeps).toBe(1);
      const scale = Math.max(...Array.from(h, Math.abs), ...Array.from(gap, Math.abs));
      let clear = 0;
      for (let x = 0; x < h.length; x++) {
        expect(Math.abs(r.values![x] - (h[x] + gap[x] - gap[0]))).toBeLessThan(1e-5 * scale);
        if (margin[x] > 1e-4 * scale) {
          clear++;
          expect(r.policy![x]).toBe(best[x]);
        }
      }
      expect(clear).toBeGreaterThan(h.length / 2);
      expect(Math.abs(r.lower - Math.min(...gap))).toBeLessThan(1e-5 * scale);
      expect(Math.abs(r.upper - Math.max(...gap))).toBeLessThan(1e-5 * scale);
    });
  });

  // Automatic boxes where llvmpipe runs them in seconds (the deterministic pair grows to (42, 32)); fixed ones otherwise.
  const solved = [
    { name: 'two classes, deterministic, automatic S', cls: TWO_DET },
    { name: 'two classes, gamma beside exponential, S = (20, 18)', cls: [{ ...TWO_RANDOM[0], S: 20 }, { ...TWO_RANDOM[1], S: 18 }] },
    { name: 'three classes, S = (6, 6, 6)', cls: THREE.map((k) => ({ ...k, S: 6 })) },
    { name: 'three classes, all deterministic (per-axis sums on every serve), S = (6, 6, 6)', cls: THREE.map((k) => ({ ...k, law: 'DETERMINISTIC' as const, S: 6 })) },
  ];
  for (const c of solved) {
    it.skipIf(!gpu.ctx)(`backend GPU: ${c.name}: the f64 polish certifies the CPU's optimum, started from the f32 values`, async () => {
      const raw = scenarioOf(c.cls, 40, 1e-3, 1e-9) as { solver: object };
      const cpu = await solveClassesScenario({ ...raw, solver: { ...raw.solver, backend: 'CPU' } });
      const r = await solveClassesScenario({ ...raw, solver: { ...raw.solver, backend: 'GPU' } });
      expect(r.solver.backend).toBe('webgpu');
      expect(r.solver.method).toMatch(/^webgpu-mpi-f32\+f64-refinement\+value-iteration/);
      expect(r.solver.adapter).toBe(gpu.ctx!.adapterName);
      expect(r.solver.gpuIterations).toBeGreaterThan(0);
      expect(r.solver.maxQueueTried).toEqual(cpu.solver.maxQueueTried);
      // Both certified: each interval holds the other's, within the tolerance.
      expectSameClassesAsCpu(r, cpu);
    }, 300_000);
  }

  it.skipIf(!gpu.ctx)('a two-class box of 61 × 61 states certifies to 1e-6 relative through the GPU (the CPU-size case at a size llvmpipe runs)', async () => {
    const cls = TWO_DET.map((k) => ({ ...k, S: 60 }));
    const r = await solveClassesScenario({ ...(scenarioOf(cls, 40, 1e-3, 1e-7) as object), solver: { tolerance: 1e-7, backend: 'GPU' } });
    expect(r.solver.backend).toBe('webgpu');
    expect(r.solver.states).toBe(61 * 61);
    expect(r.solver.stopReason).toBe('converged');
    expect((r.averageCostUpper - r.averageCostLower) / r.averageCostLower).toBeLessThanOrEqual(1e-6);
  }, 300_000);

  it.skipIf(!gpu.ctx)('the f64 refinement on the GPU leaves the CPU a few f64 sweeps where the policy is already the optimum (examples/two-classes.json at (60, 60)), and the same certified optimum', async () => {
    const example = JSON.parse(readFileSync(new URL('../../examples/two-classes.json', import.meta.url), 'utf8')) as { classes: object[] };
    const raw = { ...example, classes: example.classes.map((c) => ({ ...c, maxQueue: 60 })) };
    const cpu = await solveClassesScenario({ ...raw, solver: { tolerance: 1e-9, backend: 'CPU' } });
    const r = await solveClassesScenario({ ...raw, solver: { tolerance: 1e-9, backend: 'GPU' } });
    expect(r.solver.iterations).toBeLessThan(cpu.solver.iterations / 10);
    expect(r.averageCostUpper - r.averageCostLower).toBeLessThanOrEqual(1e-9 * r.averageCostLower);
    expect(r.averageCostLower).toBeLessThanOrEqual(cpu.averageCostUpper);
    expect(r.averageCostUpper).toBeGreaterThanOrEqual(cpu.averageCostLower);
    expect(r.policy.batch).toEqual(cpu.policy.batch);
  }, 300_000);

  it.skipIf(!gpu.ctx)('a device lost mid-stage: the joint solve finishes on the CPU with the same answer, and says so in the log', async () => {
    const logs = captureLogs();
    const hooks = destroyAfterFirstSubmit();
    registerGpuProvider(createGpuProvider(cpuPolicyIteration, { hooks }));
    const raw = scenarioOf(TWO_DET, 40, 1e-3, 1e-9) as { solver: object };
    const cpu = await solveClassesScenario({ ...raw, solver: { ...raw.solver, backend: 'CPU' } });
    const r = await solveClassesScenario({ ...raw, solver: { ...raw.solver, backend: 'GPU' } });
    expect(hooks.fired).toBeGreaterThanOrEqual(1);
    expect(r.solver.backend).toBe('cpu');
    expect(r.policy.batch).toEqual(cpu.policy.batch);
    expect(r.averageCostLower).toBe(cpu.averageCostLower);
    const warned = logs.find((l) => l.msg === 'GPU stage failed; solving the joint model on the CPU');
    expect(warned?.level).toBe(40);
  }, 300_000);
});

describe('backend GPU for several classes without a GPU', () => {
  it('BATCHWISE_GPU=off: backend GPU is refused by name and AUTO solves on the CPU', async () => {
    const saved = process.env.BATCHWISE_GPU;
    process.env.BATCHWISE_GPU = 'off';
    try {
      const raw = scenarioOf(THREE.map((k) => ({ ...k, S: 4 })), 40, 1e-3, 1e-9) as { solver: object };
      const refused = solveClassesScenario({ ...raw, solver: { ...raw.solver, backend: 'GPU' } });
      await expect(refused).rejects.toThrow(BackendUnavailableError);
      await expect(solveClassesScenario({ ...raw, solver: { ...raw.solver, backend: 'GPU' } })).rejects.toThrow('BATCHWISE_GPU=off');
      expect((await solveClassesScenario({ ...raw, solver: { ...raw.solver, backend: 'AUTO' } })).solver.backend).toBe('cpu');
    } finally {
      if (saved === undefined) delete process.env.BATCHWISE_GPU;
      else process.env.BATCHWISE_GPU = saved;
    }
  });
});
