import { beforeAll, describe, expect, it } from 'vitest';
import { windowCounts } from '../../src/fit/counts.js';
import { mmppCountMoments } from '../../src/fit/moments.js';
import type { Scenario, ValidatedScenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { broadcastPolicy } from '../../src/policy/policy.js';
import { MmppArrivals, MmppTablePolicy } from '../../src/sim/mmpp.js';
import { compareMmppPolicies } from '../../src/sim/mmppCompare.js';
import { simulateDetailed, tablePolicy } from '../../src/sim/simulate.js';
import { solveMmppAndPoisson, type MmppPolicies } from '../../src/solve/mmppPolicies.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * Bursty two-phase traffic on the spec's V100 fit (B = 32, capacity ≈ 4,923 /s): mean
 * 2,000 /s; bursts at 2.5× the mean (5,000 /s, above capacity) lasting 50 ms on average,
 * every 250 ms on average; base phase 1,250 /s.
 */
const BURSTY: Scenario = {
  ...specScenario(0, 1e-3),
  arrivalProcess: { burst: { meanRate: 2000, peakToMean: 2.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } },
};

let scenario: ValidatedScenario;
let solved: MmppPolicies;

beforeAll(async () => {
  scenario = validateScenario(BURSTY);
  solved = await solveMmppAndPoisson(scenario);
});

describe('bursty two-phase example: the MMPP-optimal policy', () => {
  it('is certified: the exact cost of the returned policy lies in [m, M], which is 1e-9 tight', () => {
    const r = solved.result;
    expect(r.solver.stopReason).toBe('converged');
    expect(r.averageCostLower).toBeLessThanOrEqual(r.averageCost * (1 + 1e-9));
    expect(r.averageCostUpper).toBeGreaterThanOrEqual(r.averageCost * (1 - 1e-9));
    expect(r.averageCostUpper - r.averageCostLower).toBeLessThanOrEqual(1e-9 * r.averageCostLower);
    expect(r.solver.tailMass).toBeLessThan(1e-9);
    expect(r.solver.states).toBe((r.solver.maxQueue + 1) * 2);
  });

  it('has one control limit per phase, and batches sooner when a burst is on', () => {
    const phases = solved.result.policy.phases!;
    expect(phases.map((p) => p.rate)).toEqual([1250, 5000]);
    expect(phases.map((p) => p.probability)).toEqual([expect.closeTo(0.8, 12), expect.closeTo(0.2, 12)]);
    expect(phases[1].controlLimit).toBeLessThan(phases[0].controlLimit);
    for (const p of phases) expect(p.actions.slice(0, p.controlLimit).every((a) => a === 0)).toBe(true);
    // The top-level summary is the likeliest phase's (the base phase here).
    expect(solved.result.policy.controlLimit).toBe(phases[0].controlLimit);
    const figures = solved.result.phaseFigures!;
    expect(figures[0].batchShare + figures[1].batchShare).toBeCloseTo(1, 12);
    expect(figures[1].meanBatchSize).toBeGreaterThan(figures[0].meanBatchSize);
  });

  it('costs less, exactly evaluated under the MMPP, than the policy solved for λ̄ as if Poisson', () => {
    const proc = scenario.params.arrivalProcess!;
    const mmpp = evaluatePolicy(scenario.params, solved.optimal).averageCost;
    const poisson = evaluatePolicy(scenario.params, broadcastPolicy(solved.poissonModel, 2)).averageCost;
    expect(Math.abs(mmpp - solved.result.averageCost) / mmpp).toBeLessThan(1e-12);
    // The optimum is certified to 1e-9; the gap to the Poisson-model policy is far larger.
    expect(poisson - mmpp).toBeGreaterThan(0.005 * mmpp);
    // The Poisson model itself is optimistic about bursty traffic.
    expect(solved.poissonResult.averageCost).toBeLessThan(mmpp);
  });
});

describe('bursty two-phase example: exact evaluation against the simulator', () => {
  const REQUESTS = 1_000_000;

  it('MMPP arrivals of the simulator have the process’s mean rate and dispersion', () => {
    const proc = scenario.params.arrivalProcess!;
    const src = new MmppArrivals(proc, 7);
    const times = new Float64Array(400_000);
    for (let i = 0; i < times.length; i++) times[i] = src.next();
    const w = windowCounts(times, 0.2);
    const m = mmppCountMoments(proc.rates, proc.generator, proc.stationary, 0.2);
    // ~1,000 windows: the sample mean is good to ~2 %, the dispersion to ~10 %.
    expect(Math.abs(w.mean - m.mean) / m.mean).toBeLessThan(0.03);
    expect(Math.abs(w.variance / w.mean - m.variance / m.mean) / (m.variance / m.mean)).toBeLessThan(0.15);
  });

  it('per-phase optimum and Poisson-model policy: simulated costs within 3 confidence half-widths of the exact ones', () => {
    const proc = scenario.params.arrivalProcess!;
    const opt = simulateDetailed(scenario.params, new MmppTablePolicy(solved.optimal, 'optimal'), { requests: REQUESTS, seed: 3 });
    const pois = simulateDetailed(scenario.params, tablePolicy(solved.poissonModel, 32, 'poisson'), { requests: REQUESTS, seed: 3 });
    expect(opt.result.arrivals).toBe('mmpp');
    const exactOpt = evaluatePolicy(scenario.params, solved.optimal);
    const exactPois = evaluatePolicy(scenario.params, broadcastPolicy(solved.poissonModel, 2));
    for (const [sim, exact] of [
      [opt.result, exactOpt],
      [pois.result, exactPois],
    ] as const) {
      expect(Math.abs(sim.averageCost - exact.averageCost)).toBeLessThan(3 * sim.confidence.averageCost!);
      expect(Math.abs(sim.meanResponseTime - exact.meanResponseTime)).toBeLessThan(3 * sim.confidence.meanResponseTime!);
      expect(Math.abs(sim.meanPower - exact.meanPower)).toBeLessThan(3 * sim.confidence.meanPower!);
      expect(Math.abs(sim.meanBatchSize - exact.meanBatchSize) / exact.meanBatchSize).toBeLessThan(0.02);
    }
    // Paired on the same arrivals: the Poisson-model policy simulates dearer, beyond its interval.
    const n = opt.groupCost.length;
    const d = Array.from({ length: n }, (_, j) => pois.groupCost[j] - opt.groupCost[j]);
    const mean = d.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
    expect(mean - 2.1 * (sd / Math.sqrt(n))).toBeGreaterThan(0);
  });

  it('compare lists the per-phase optimum, the Poisson model, greedy and the best Triton delay', async () => {
    const c = await compareMmppPolicies(scenario.params, solved.optimal, solved.poissonModel, {
      requests: 100_000,
      tuningRequests: 50_000,
      delayGrid: [0, 0.002, 0.005],
    });
    expect(c.rows.map((r) => r.label)).toEqual(['optimal', 'poisson model', 'greedy', 'best triton']);
    expect(Math.abs(c.rows[0].exactCost! - solved.result.averageCost) / solved.result.averageCost).toBeLessThan(1e-12);
    expect(c.rows[1].exactCost!).toBeGreaterThan(c.rows[0].exactCost!);
    expect(c.rows[2].exactCost!).toBeGreaterThan(c.rows[0].exactCost!);
    expect(c.rows[3].exactCost).toBeNull();
    expect(c.delayTrials).toHaveLength(3);
  });
});
