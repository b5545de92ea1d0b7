import { afterAll, describe, expect, it } from 'vitest';
import type { Distribution, Scenario } from '../../src/model/scenario.js';
import { releaseGpu } from '../../src/solve/gpu/device.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { logUniform, rng } from '../helpers/random.js';
import { gpuForTests } from './gpuEnv.js';
import { expectSameAsCpu } from './solveCompare.js';

const gpu = await gpuForTests();
afterAll(releaseGpu);

const DISTRIBUTIONS: Distribution[] = ['DETERMINISTIC', 'EXPONENTIAL', 'GAMMA'];
/** Batch limits, up to 256; the large ones at light load so that llvmpipe stays quick. */
const BATCHES = [1, 2, 4, 8, 16, 32, 64, 256];

/**
 * Case i: distribution i mod 3, table inputs for odd i, B from BATCHES; time scale from
 * microseconds to seconds; load and weights random. Seeded: the same 24 cases every run.
 */
function gpuCase(i: number): Scenario {
  const r = rng(1000 + i);
  const B = BATCHES[i % BATCHES.length];
  const distribution = DISTRIBUTIONS[i % 3];
  const scale = logUniform(r, 1e-6, 1);
  const base = scale * (0.5 + r());
  const perItem = (scale * (0.05 + r())) / Math.max(B, 4);
  const table = Array.from({ length: B }, (_, k) => base + perItem * (k + 1) * (0.9 + 0.2 * r()));
  for (let k = 1; k < B; k++) table[k] = Math.max(table[k], table[k - 1]);
  const lB = i % 2 ? table[B - 1] : base + perItem * B;
  // Light load for big B: S is at least 4B, and the pmf width grows with the load (llvmpipe is slow).
  // Geometric-tailed laws (exponential, gamma) at high load need S in the thousands: keep them lighter.
  const heavy = distribution !== 'DETERMINISTIC';
  const rho = B >= 256 ? 0.002 + 0.006 * r() : B >= 64 ? 0.02 + 0.08 * r() : heavy ? 0.25 + 0.35 * r() : 0.3 + 0.5 * r();
  const latencyWeight = logUniform(r, 0.1, 10);
  const busy = 20 + 80 * r();
  return {
    arrivalRate: (rho * B) / lB,
    maxBatchSize: B,
    serviceTime: {
      ...(i % 2 ? { table: { values: table } } : { linear: { perItem, base } }),
      distribution,
      ...(distribution === 'GAMMA' ? { cv: logUniform(r, 0.2, 2) } : {}),
    },
    power: { idleWatts: 30 * r(), busyLinear: { perItem: 3 * r(), base: busy } },
    objective: { latencyWeight, powerWeight: (logUniform(r, 1e-3, 1) * latencyWeight * lB) / busy },
  };
}

describe(`random scenarios on the GPU equal the CPU${gpu.skip}`, () => {
  it('covers all three distributions, table inputs and B = 256', () => {
    const cases = Array.from({ length: 24 }, (_, i) => gpuCase(i));
    expect(new Set(cases.map((c) => c.serviceTime.distribution))).toEqual(new Set(DISTRIBUTIONS));
    expect(cases.filter((c) => c.serviceTime.table).length).toBe(12);
    expect(Math.max(...cases.map((c) => c.maxBatchSize))).toBe(256);
  });

  for (let i = 0; i < 24; i++) {
    const c = gpuCase(i);
    const name = `#${i} B=${c.maxBatchSize} ${c.serviceTime.distribution}${c.serviceTime.table ? ' table' : ''}`;
    it.skipIf(!gpu.ctx)(name, async () => {
      const onCpu = await solveScenario(c, { backend: 'CPU' });
      const onGpu = await solveScenario(c, { backend: 'GPU' });
      expectSameAsCpu(onGpu, onCpu);
    });
  }
});
