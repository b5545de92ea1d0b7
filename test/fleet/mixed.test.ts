import { describe, expect, it } from 'vitest';
import { RoundRobin, ShortestQueue } from '../../src/fleet/routers.js';
import { validateFleet, type FleetScenario } from '../../src/fleet/scenario.js';
import { simulateFleet } from '../../src/fleet/simulate.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { greedyPolicy } from '../../src/policy/policy.js';
import { twoClassFleet, V100 } from './helpers.js';

describe('mixed batches', () => {
  it('two classes with one service model on one accelerator are one Poisson stream at λ1 + λ2 (exact greedy)', () => {
    const s: FleetScenario = {
      classes: [{ name: 'a', arrivalRate: 1200 }, { name: 'b', arrivalRate: 800 }],
      accelerators: [{ name: 'gpu', count: 1, maxBatchSize: 32, policy: 'greedy', serviceTime: { a: V100.serviceTime, b: V100.serviceTime }, power: V100.power }],
      batching: 'MIXED',
    };
    const r = simulateFleet(validateFleet(s), new RoundRobin(1), { requests: 300_000, seed: 2 });
    const exact = evaluatePolicy(validateScenario(V100).params, greedyPolicy(32));
    for (const c of r.classes) expect(Math.abs(c.meanResponseTime - exact.meanResponseTime)).toBeLessThan(1.3 * (c.meanResponseCi ?? 0));
    expect(r.accelerators[0].throughput).toBeCloseTo(2000, -2);
  });

  it('head-of-line blocking: fast requests wait behind slow batches, and it is part of their response time', () => {
    // Mixed batches run at the slowest class's service time, so the same mix needs a lighter load to stay stable.
    for (const [batching, scale] of [['PER_CLASS', 1], ['MIXED', 0.2]] as const) {
      const r = simulateFleet(validateFleet(twoClassFleet(2, scale, batching)), new ShortestQueue(), { requests: 100_000, seed: 4 });
      const [vision, language] = r.classes;
      expect(vision.meanHeadOfLineBlocking).toBeGreaterThan(0);
      expect(vision.meanHeadOfLineBlocking).toBeLessThan(vision.meanResponseTime);
      // The slow class is delayed far less, relative to its own response time, by the fast one.
      expect(language.meanHeadOfLineBlocking / language.meanResponseTime).toBeLessThan(vision.meanHeadOfLineBlocking / vision.meanResponseTime);
    }
  });

  it('is reproducible by seed and differs across seeds', () => {
    const f = validateFleet(twoClassFleet(2, 1, 'MIXED'));
    const a = simulateFleet(f, new ShortestQueue(), { requests: 20_000, seed: 9 });
    const b = simulateFleet(f, new ShortestQueue(), { requests: 20_000, seed: 9 });
    const c = simulateFleet(f, new ShortestQueue(), { requests: 20_000, seed: 10 });
    expect(b).toEqual(a);
    expect(c.meanResponseTime).not.toBe(a.meanResponseTime);
  });
});
