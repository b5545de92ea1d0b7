import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../src/service/messages.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specCapacity, specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from './support/harness.js';

async function collect(it: AsyncIterable<ScenarioResult>): Promise<ScenarioResult[]> {
  const out: ScenarioResult[] = [];
  for await (const r of it) out.push(r);
  return out;
}

describe('SolveBatch over gRPC (two workers)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 2, maxScenariosPerBatch: 60 } });
  });
  afterAll(async () => h?.close());

  it('a 50-scenario grid with two invalid points: one entry per index, errors in place, results correct', async () => {
    // 25 arrival rates × B ∈ {32, 64}. Two rates lie between the capacities of B = 32 and B = 64,
    // so exactly those two points (with B = 32) are unstable and must come back as errors.
    const cap32 = specCapacity(32);
    const cap64 = specCapacity(64);
    const between = [cap32 + 0.25 * (cap64 - cap32), cap32 + 0.5 * (cap64 - cap32)];
    const rates = [...Array.from({ length: 23 }, (_, i) => 200 * (i + 1)), ...between];
    const results = await collect(h.client().solveBatch({ grid: { base: specScenario(1000, 1e-4), arrivalRate: rates, maxBatchSize: [32, 64] } }));

    expect(results).toHaveLength(50);
    expect(results.map((r) => r.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const errors = results.filter((r) => r.error);
    expect(errors.map((r) => [r.parameters.arrivalRate, r.parameters.maxBatchSize]).sort()).toEqual(between.map((l) => [l, 32]).sort());
    for (const e of errors) {
      expect(e.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'arrivalRate' });
      expect(e.error!.message).toMatch(/not below the capacity/);
      expect(e.result).toBeUndefined();
    }
    // Tags match the grid's index order (arrival rate slowest, then B).
    for (const r of results) {
      expect(r.parameters.arrivalRate).toBe(rates[Math.floor(r.index / 2)]);
      expect(r.parameters.maxBatchSize).toBe([32, 64][r.index % 2]);
    }
    const solved = results.filter((r) => r.result);
    expect(solved).toHaveLength(48);
    for (const r of solved) {
      const x = r.result!;
      expect(x.solver.stopReason).toBe('converged');
      expect(x.solver.tailMass).toBeLessThan(1e-9);
      // The exact cost of the returned policy lies in the certified interval (to its tolerance).
      expect(x.averageCost).toBeGreaterThanOrEqual(x.averageCostLower * (1 - 1e-9));
      expect(x.averageCost).toBeLessThanOrEqual(x.averageCostUpper * (1 + 1e-9));
    }
    // Neighbour warm starts were used, and they do not change the answer: spot-check against cold in-process solves.
    expect(solved.filter((r) => r.warmStarted).length).toBeGreaterThan(24);
    for (const r of solved.filter((_, i) => i % 8 === 3)) {
      const cold = await solveScenario({ ...specScenario(r.parameters.arrivalRate, 1e-4), maxBatchSize: r.parameters.maxBatchSize });
      expect(Math.abs(r.result!.averageCost - cold.averageCost) / cold.averageCost).toBeLessThan(1e-9);
      expect(r.result!.policy.controlLimit).toBe(cold.policy.controlLimit);
    }
    const line = h.lines.find((l) => l.rpc === 'SolveBatch');
    expect(line).toMatchObject({ code: 'OK', scenarios: 50, invalid: 2, failed: 0, solved: 48 });
  });

  it('a list answers each entry, malformed ones with their field path; repeats come from the cache', async () => {
    const good = specScenario(1000, 1e-4); // solved in the grid above: a cache hit now
    const results = await collect(
      h.client().solveBatch({
        list: {
          scenarios: [good, { ...good, serviceTime: undefined }, { ...good, objective: { latencyWeight: 0, powerWeight: 0 } }, specScenario(1100, 1e-3)],
        },
      }),
    );
    const byIndex = new Map(results.map((r) => [r.index, r]));
    expect(results).toHaveLength(4);
    expect(byIndex.get(0)).toMatchObject({ cached: true });
    expect(byIndex.get(1)!.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'serviceTime' });
    expect(byIndex.get(2)!.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'objective' });
    expect(byIndex.get(3)!.result!.averageCost).toBeCloseTo((await solveScenario(specScenario(1100, 1e-3))).averageCost, 12);
  });

  it('refuses a batch over maxScenariosPerBatch as a whole, naming the bound', async () => {
    const e = await collect(h.client().solveBatch({ grid: { base: specScenario(1000, 1e-4), arrivalRate: Array.from({ length: 61 }, (_, i) => 10 * (i + 1)) } })).catch((x: unknown) => x);
    expect(e).toMatchObject({ field: 'grid', reason: expect.stringMatching(/61 scenarios.*maxScenariosPerBatch limit 60/) });
  });

  it('neighbour warm starts take fewer solver iterations than cold solves of the same sweep', async () => {
    // A weight not solved before, warm first (so no near-identical solution is cached for it),
    // then the same sweep cold at a weight that differs in the 8th digit (so it is not a cache hit).
    const grid = (w: number) => ({ base: specScenario(1000, w), arrivalRate: Array.from({ length: 12 }, (_, i) => 300 * (i + 1)), powerWeight: [w] });
    const iterations = (rs: ScenarioResult[]) => rs.reduce((n, r) => n + r.result!.solver.totalIterations, 0);
    const warm = await collect(h.client().solveBatch({ grid: grid(3e-4) }));
    const cold = await collect(h.client().solveBatch({ grid: grid(3.0000001e-4), disableWarmStart: true }));
    expect(cold.every((r) => r.result && !r.warmStarted && !r.cached)).toBe(true);
    expect(warm.filter((r) => r.warmStarted).length).toBeGreaterThanOrEqual(10);
    console.info(`12-point sweep: ${iterations(cold)} iterations cold, ${iterations(warm)} warm-started`);
    expect(iterations(warm)).toBeLessThan(iterations(cold));
  });
});
