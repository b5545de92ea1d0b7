import { afterAll, describe, expect, it } from 'vitest';
import { AbortError, ScenarioError } from '../../src/model/errors.js';
import type { Distribution, Scenario } from '../../src/model/scenario.js';
import { solveScenariosOnGpu, type GpuBatchItem, type GpuBatchOptions } from '../../src/solve/gpuBatch.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { readFlags } from '../../src/solve/gpu/flags.js';
import type { SolveResult } from '../../src/solve/result.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import type { ClassesSolveResult } from '../../src/solve/classes/result.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import type { BatchRecord } from '../../src/solve/gpu/collector.js';
import { scenarioOf, type CaseClass } from '../classes/support.js';
import { rng } from '../helpers/random.js';
import { gpuForTests } from './gpuEnv.js';
import { expectSameAsCpu, expectSameClassesAsCpu } from './solveCompare.js';

const gpu = await gpuForTests();
afterAll(releaseGpu);

const DISTRIBUTIONS: Distribution[] = ['DETERMINISTIC', 'EXPONENTIAL', 'GAMMA'];

/** 64 different small scenarios: B 1..8, all distributions, linear and table inputs, loads 0.2..0.8. */
function smallCase(i: number): Scenario {
  const r = rng(5000 + i);
  const B = 1 + (i % 8);
  const distribution = DISTRIBUTIONS[i % 3];
  const l = (b: number): number => 0.002 + 0.0004 * b * (1 + 0.2 * r());
  const table = Array.from({ length: B }, (_, k) => l(k + 1));
  for (let k = 1; k < B; k++) table[k] = Math.max(table[k], table[k - 1]);
  return {
    arrivalRate: ((0.2 + 0.6 * r()) * B) / table[B - 1],
    maxBatchSize: B,
    serviceTime: {
      ...(i % 4 === 1 ? { table: { values: table } } : { linear: { perItem: 0.0004, base: 0.002 } }),
      distribution,
      ...(distribution === 'GAMMA' ? { cv: 0.3 + r() } : {}),
    },
    power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
    objective: { latencyWeight: 1, powerWeight: 1e-4 * (1 + 20 * r()) },
  };
}

async function collect(input: readonly unknown[], opts: GpuBatchOptions): Promise<Map<number, GpuBatchItem>> {
  const items = new Map<number, GpuBatchItem>();
  for await (const item of solveScenariosOnGpu(input, opts)) {
    expect(items.has(item.index)).toBe(false);
    items.set(item.index, item);
  }
  expect(items.size).toBe(input.length);
  return items;
}

function resultOf(item: GpuBatchItem | undefined): SolveResult {
  if (!item || !('result' in item)) throw new Error(`no result: ${item && 'error' in item ? item.error.message : 'missing'}`);
  return item.result;
}

function classesOf(item: GpuBatchItem | undefined): ClassesSolveResult {
  if (!item || !('classes' in item)) throw new Error(`no classes result: ${item && 'error' in item ? item.error.message : 'missing'}`);
  return item.classes;
}

/** Small two-class scenarios on fixed boxes of 10 to 20 per class (llvmpipe runs them in seconds). */
const det: CaseClass = { name: 'a', rate: 200, B: 4, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1 };
const TWO_CLASS: CaseClass[][] = [
  [{ ...det, S: 14 }, { ...det, name: 'b', rate: 120, B: 3, perItem: 0.002, w: 2, S: 12 }],
  [{ ...det, law: 'GAMMA', cv: 0.5, S: 16 }, { ...det, name: 'b', rate: 100, B: 3, law: 'EXPONENTIAL', w: 0.5, S: 18 }],
  [{ ...det, rate: 150, B: 3, S: 10 }, { ...det, name: 'b', rate: 90, B: 2, perItem: 0.003, w: 1.5, law: 'EXPONENTIAL', S: 20 }],
];
const twoClass = (cls: CaseClass[], backend: 'GPU' | 'CPU'): object => ({ ...(scenarioOf(cls, 40, 1e-3) as object), solver: { tolerance: 1e-9, backend } });

describe(`batched GPU solves${gpu.skip}`, () => {
  it.skipIf(!gpu.ctx)('a batch of 64 different scenarios (one dispatch per sweep for all) equals 64 single solves', async () => {
    const scenarios = Array.from({ length: 64 }, (_, i) => smallCase(i));
    const perSubmit: number[] = [];
    const items = await collect([...scenarios, { arrivalRate: -1 }], { hooks: { afterSubmit: (i) => perSubmit.push(i.scenarios) } });
    // Every scenario's first f32 stage ran in the same dispatches.
    expect(perSubmit[0]).toBe(64);
    const bad = items.get(64);
    expect(bad && 'error' in bad && bad.error).toBeInstanceOf(ScenarioError);
    for (let i = 0; i < 64; i++) {
      const batched = resultOf(items.get(i));
      const single = await solveScenario(scenarios[i], { backend: 'GPU' });
      expectSameAsCpu(batched, single);
      // Each scenario's arithmetic in the batch is the same as alone: the same sweeps, the same answer.
      expect(batched.solver.gpuIterations).toBe(single.solver.gpuIterations);
      expect(batched.averageCost).toBe(single.averageCost);
      expect([batched.averageCostLower, batched.averageCostUpper]).toEqual([single.averageCostLower, single.averageCostUpper]);
    }
  });

  it.skipIf(!gpu.ctx)('with limited concurrency the rounds are smaller, the answers the same as on the CPU', async () => {
    const scenarios = Array.from({ length: 12 }, (_, i) => smallCase(100 + i));
    const perSubmit: number[] = [];
    const items = await collect(scenarios, { concurrency: 4, hooks: { afterSubmit: (i) => perSubmit.push(i.scenarios) } });
    expect(Math.max(...perSubmit)).toBeLessThanOrEqual(4);
    for (let i = 0; i < scenarios.length; i++) {
      expectSameAsCpu(resultOf(items.get(i)), await solveScenario(scenarios[i], { backend: 'CPU' }));
    }
  });

  it.skipIf(!gpu.ctx)('AUTO follows the rule: CPU on a software adapter at the measured threshold, GPU when the threshold is met', async () => {
    const scenarios = Array.from({ length: 4 }, (_, i) => smallCase(200 + i));
    const auto = await collect(scenarios, { backend: 'AUTO' });
    const forced = await collect(scenarios, { backend: 'AUTO', flags: { ...readFlags(), BATCHWISE_GPU_AUTO_MIN_WORK_SOFTWARE: 1, BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE: 1 } });
    for (let i = 0; i < scenarios.length; i++) {
      const cpu = await solveScenario(scenarios[i], { backend: 'CPU' });
      const a = resultOf(auto.get(i));
      expect(a.solver.backend).toBe(gpu.ctx!.kind === 'software' ? 'cpu' : a.solver.backend);
      expectSameAsCpu(a, cpu, false);
      expectSameAsCpu(resultOf(forced.get(i)), cpu);
    }
  });

  it.skipIf(!gpu.ctx)('a round holding Poisson and MMPP scenarios: all share its dispatches, each gives the certified result of a solve alone on the CPU', async () => {
    const base = smallCase(400);
    const onePhase: Scenario = { ...base, arrivalRate: 0, arrivalProcess: { mmpp: { rates: [base.arrivalRate], generator: [0] } } };
    const twoPhase: Scenario = {
      ...smallCase(401),
      arrivalRate: 0,
      arrivalProcess: { burst: { meanRate: 0.4 * (smallCase(401).maxBatchSize / 0.0052), peakToMean: 1.5, meanBurstSeconds: 0.02, meanGapSeconds: 0.08 } },
    };
    const three = smallCase(402);
    const threePhase: Scenario = { ...three, arrivalRate: 0, arrivalProcess: { mmpp: { rates: [0, 0.6 * three.arrivalRate, 1.6 * three.arrivalRate], generator: [-40, 30, 10, 20, -25, 5, 30, 70, -100] } } };
    const scenarios = [base, twoPhase, smallCase(403), onePhase, threePhase];
    const perSubmit: number[] = [];
    const items = await collect(scenarios, { hooks: { afterSubmit: (i) => perSubmit.push(i.scenarios) } });
    // The first round holds all five (no scenario is solved beside the rounds: single solves
    // would not report to these hooks).
    expect(perSubmit[0]).toBe(scenarios.length);
    const tables = (r: SolveResult): number[][] => (r.policy.phases ?? [r.policy]).map((p) => Array.from(p.actions).slice(0, r.solver.maxQueue));
    for (const [i, s] of scenarios.entries()) {
      const batched = resultOf(items.get(i));
      const alone = await solveScenario(s, { backend: 'CPU' });
      expect(batched.solver.backend).toBe('webgpu');
      expect(batched.solver.gpuIterations).toBeGreaterThan(0);
      expect(batched.solver.maxQueue).toBe(alone.solver.maxQueue);
      expect(tables(batched)).toEqual(tables(alone));
      const g = alone.averageCost;
      expect(Math.abs(batched.averageCost - g)).toBeLessThanOrEqual(1e-9 * g);
      expect(Math.abs(batched.averageCostLower - alone.averageCostLower)).toBeLessThanOrEqual(1e-9 * g);
      expect(Math.abs(batched.averageCostUpper - alone.averageCostUpper)).toBeLessThanOrEqual(1e-9 * g);
      expect(batched.averageCostLower).toBeLessThanOrEqual(batched.averageCost * (1 + 1e-9));
      expect(batched.averageCostUpper).toBeGreaterThanOrEqual(batched.averageCost * (1 - 1e-9));
    }
    expect([1, 4].map((i) => resultOf(items.get(i)).policy.phases!.length)).toEqual([2, 3]);
    expect(resultOf(items.get(0)).averageCost).toBe(resultOf(items.get(3)).averageCost);
    // A scenario's arithmetic in the mixed round is the same as alone on the GPU.
    const single = await solveScenario(threePhase, { backend: 'GPU' });
    expect(resultOf(items.get(4)).solver.gpuIterations).toBe(single.solver.gpuIterations);
    expect(resultOf(items.get(4)).averageCost).toBe(single.averageCost);
  });

  it.skipIf(!gpu.ctx)('multi-class scenarios share joint batches (their f32 stages, then their residual evaluations), each certified as alone', async () => {
    const batches: BatchRecord[] = [];
    const items = await collect(
      TWO_CLASS.map((cls) => twoClass(cls, 'GPU')),
      { onBatch: (b) => batches.push(b) },
    );
    // The three stages ran in one joint batch, and the refinements' evaluations shared batches of their own.
    expect({ ...batches[0], scenarios: [...batches[0].scenarios].sort() }).toEqual({ kind: 'joint', size: 3, scenarios: [0, 1, 2] });
    expect(batches.every((b) => b.kind !== 'single')).toBe(true);
    expect(Math.max(...batches.filter((b) => b.kind === 'residual').map((b) => b.size))).toBeGreaterThan(1);
    for (const [i, cls] of TWO_CLASS.entries()) {
      const r = classesOf(items.get(i));
      expect(r.solver.backend).toBe('webgpu');
      expect(r.solver.gpuIterations).toBeGreaterThan(0);
      expectSameClassesAsCpu(r, await solveClassesScenario(twoClass(cls, 'CPU')));
      // Its arithmetic in the batches is the same as alone on the GPU.
      const alone = await solveClassesScenario(twoClass(cls, 'GPU'));
      expect(r.solver.gpuIterations).toBe(alone.solver.gpuIterations);
      expect([r.averageCostLower, r.averageCostUpper]).toEqual([alone.averageCostLower, alone.averageCostUpper]);
    }
  }, 300_000);

  it.skipIf(!gpu.ctx)('a mixed batch: single-class and multi-class scenarios in the same rounds, each kind in its own batch, each its own answer', async () => {
    const batches: BatchRecord[] = [];
    const single = [smallCase(500), smallCase(501)];
    const classes = TWO_CLASS.slice(0, 2);
    const raw = twoClass(classes[0], 'GPU') as { classes: object[] };
    const badWeight = { ...raw, classes: [raw.classes[0], { ...raw.classes[1], latencyWeight: -1 }] };
    const items = await collect([single[0], twoClass(classes[0], 'GPU'), single[1], twoClass(classes[1], 'GPU'), badWeight], { onBatch: (b) => batches.push(b) });
    // The first round: both single-class stages in one batch, both joint stages in another.
    expect(batches.slice(0, 2).map((b) => ({ ...b, scenarios: [...b.scenarios].sort() }))).toEqual([
      { kind: 'single', size: 2, scenarios: [0, 2] },
      { kind: 'joint', size: 2, scenarios: [1, 3] },
    ]);
    for (const [k, i] of [0, 2].entries()) expectSameAsCpu(resultOf(items.get(i)), await solveScenario(single[k], { backend: 'CPU' }));
    for (const [k, i] of [1, 3].entries()) expectSameClassesAsCpu(classesOf(items.get(i)), await solveClassesScenario(twoClass(classes[k], 'CPU')));
    const bad = items.get(4);
    expect(bad && 'error' in bad && bad.error).toBeInstanceOf(ScenarioError);
    expect(bad && 'error' in bad && (bad.error as ScenarioError).field).toBe('classes[1].latencyWeight');
  }, 300_000);

  it.skipIf(!gpu.ctx)('a batch of multi-class scenarios cancelled during its first joint batch: every item an AbortError, and the batch ends', async () => {
    const ac = new AbortController();
    const items = await collect(
      TWO_CLASS.map((cls) => twoClass(cls, 'GPU')),
      { signal: ac.signal, hooks: { afterSubmit: () => ac.abort() } },
    );
    for (const item of items.values()) expect('error' in item && item.error).toBeInstanceOf(AbortError);
  });

  it.skipIf(!gpu.ctx)('scenarios that ask for the CPU are solved there', async () => {
    const s = { ...smallCase(300), solver: { backend: 'CPU' as const } };
    const items = await collect([s, smallCase(301)], {});
    expect(resultOf(items.get(0)).solver.backend).toBe('cpu');
    expect(resultOf(items.get(1)).solver.backend).toBe('webgpu');
  });
});
