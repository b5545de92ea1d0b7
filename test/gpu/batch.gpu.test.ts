import { afterAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import type { Distribution, Scenario } from '../../src/model/scenario.js';
import { solveScenariosOnGpu, type GpuBatchItem, type GpuBatchOptions } from '../../src/solve/gpuBatch.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { readFlags } from '../../src/solve/gpu/flags.js';
import type { SolveResult } from '../../src/solve/result.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { rng } from '../helpers/random.js';
import { gpuForTests } from './gpuEnv.js';
import { expectSameAsCpu } from './solveCompare.js';

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

  it.skipIf(!gpu.ctx)('MMPP scenarios in a batch: a one-phase one joins the rounds, a two-phase one is solved on its own, both as solved alone', async () => {
    const base = smallCase(400);
    const onePhase: Scenario = { ...base, arrivalRate: 0, arrivalProcess: { mmpp: { rates: [base.arrivalRate], generator: [0] } } };
    const twoPhase: Scenario = {
      ...smallCase(401),
      arrivalRate: 0,
      arrivalProcess: { burst: { meanRate: 0.4 * (smallCase(401).maxBatchSize / 0.0052), peakToMean: 1.5, meanBurstSeconds: 0.02, meanGapSeconds: 0.08 } },
    };
    const perSubmit: number[] = [];
    const items = await collect([base, onePhase, twoPhase], { hooks: { afterSubmit: (i) => perSubmit.push(i.scenarios) } });
    // The two one-phase scenarios share the first round's dispatches.
    expect(perSubmit[0]).toBe(2);
    for (const [i, s] of [base, onePhase, twoPhase].entries()) {
      const batched = resultOf(items.get(i));
      const alone = await solveScenario(s, { backend: 'CPU' });
      expect(Math.abs(batched.averageCost - alone.averageCost)).toBeLessThanOrEqual(1e-9 * alone.averageCost);
      expect(batched.averageCostLower).toBeLessThanOrEqual(alone.averageCost * (1 + 1e-9));
      expect(batched.averageCostUpper).toBeGreaterThanOrEqual(alone.averageCost * (1 - 1e-9));
    }
    expect(resultOf(items.get(2)).policy.phases!.length).toBe(2);
    expect(resultOf(items.get(0)).averageCost).toBe(resultOf(items.get(1)).averageCost);
  });

  it.skipIf(!gpu.ctx)('scenarios that ask for the CPU are solved there', async () => {
    const s = { ...smallCase(300), solver: { backend: 'CPU' as const } };
    const items = await collect([s, smallCase(301)], {});
    expect(resultOf(items.get(0)).solver.backend).toBe('cpu');
    expect(resultOf(items.get(1)).solver.backend).toBe('webgpu');
  });
});
