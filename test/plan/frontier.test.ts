import { beforeAll, describe, expect, it } from 'vitest';
import { computeFrontier, type Frontier } from '../../src/plan/frontier.js';
import { powerBound } from '../../src/plan/powerBound.js';
import { DEFAULT_RESOLUTION } from '../../src/plan/search.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { staticPolicy } from '../../src/policy/policy.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';

/** g*(μ) = min E[P] + μ·E[R], from an ordinary solve of the scenario with weights (μ, 1). */
async function optimumAt(lambda: number, mu: number): Promise<number> {
  const sc = specScenario(lambda, 1);
  sc.objective = { latencyWeight: mu, powerWeight: 1 };
  return (await solveScenario(sc)).averageCost;
}

const cost = (v: Frontier['vertices'][number], mu: number): number => v.figures.meanPower + mu * v.figures.meanResponseTime;

describe('frontier at λ = 1500 (complete: the least power is attained)', () => {
  let f: Frontier;
  beforeAll(async () => {
    f = await computeFrontier(specScenario(1500, 1e-4), { resolution: DEFAULT_RESOLUTION });
  });

  it('is monotone and convex: latency up, power down, slopes flattening', () => {
    const v = f.vertices;
    expect(v.length).toBeGreaterThanOrEqual(12);
    for (let i = 1; i < v.length; i++) {
      expect(v[i].figures.meanResponseTime).toBeGreaterThan(v[i - 1].figures.meanResponseTime);
      expect(v[i].figures.meanPower).toBeLessThan(v[i - 1].figures.meanPower);
    }
    for (let i = 1; i < f.breakpoints.length; i++) expect(f.breakpoints[i]).toBeLessThan(f.breakpoints[i - 1]);
  });

  it('starts at the docs/model.md §6 least-latency policy and ends at the least possible power', () => {
    // The w_pow = 0 row of docs/model.md §6 (λ = 1500): E[R] 3.752818 ms, E[P] 89.8679 W, control limit 2.
    expect(f.vertices[0].figures.meanResponseTime * 1e3).toBeCloseTo(3.752818, 5);
    expect(f.vertices[0].figures.meanPower).toBeCloseTo(89.8679, 3);
    expect(f.complete).toBe(true);
    // The bound is attained by serving exactly 13 at a time: its exact evaluation is the last vertex.
    const p = validateScenario(specScenario(1500, 1e-4)).params;
    const bound = powerBound(p);
    expect(bound).toMatchObject({ attained: true, batchSizes: [13] });
    const static13 = evaluatePolicy(p, staticPolicy(13));
    expect(static13.meanPower).toBeCloseTo(bound.infimum, 10);
    expect(f.vertices[f.vertices.length - 1].figures.meanPower).toBeCloseTo(bound.infimum, 9);
    for (const v of f.vertices) expect(v.figures.meanPower).toBeGreaterThanOrEqual(bound.infimum * (1 - 1e-12));
  });

  it('every vertex is optimal at its weight and inside its weight range (independent solves)', async () => {
    for (const v of f.vertices) {
      const weights = [v.solvedAt];
      // A weight strictly inside its range of optimality (geometric middle; the last vertex's range reaches 0).
      if (Number.isFinite(v.weightHigh)) weights.push(v.weightLow > 0 ? Math.sqrt(v.weightLow * v.weightHigh) : v.weightHigh / 2);
      for (const mu of weights.filter(Number.isFinite)) {
        const g = await optimumAt(1500, mu);
        expect(Math.abs(cost(v, mu) - g) / g, `vertex at ${v.figures.meanResponseTime} s, μ = ${mu}`).toBeLessThan(2e-9);
      }
    }
  });

  it('adjacent vertices tie at their breakpoint and nothing beats them there', async () => {
    for (let i = 0; i < f.breakpoints.length; i++) {
      const mu = f.breakpoints[i];
      const a = cost(f.vertices[i], mu);
      const c = cost(f.vertices[i + 1], mu);
      expect(Math.abs(a - c) / a).toBeLessThan(1e-12);
      const g = await optimumAt(1500, mu);
      // No policy is below the tie by more than the search's resolution (plus the solver's tolerance).
      expect((a - g) / a).toBeLessThan(DEFAULT_RESOLUTION + 1e-9);
      expect((a - g) / a).toBeGreaterThan(-1e-9);
    }
  });
});

describe('frontier at λ = 4000 (the least power is only approached)', () => {
  it('stops at the latency cap, stays above the bound, and every vertex is optimal at its weight', async () => {
    const f = await computeFrontier(specScenario(4000, 1e-3), { maxLatency: 10e-3 });
    expect(f.complete).toBe(false);
    expect(f.powerBound.attained).toBe(false);
    const v = f.vertices;
    expect(v[v.length - 1].figures.meanResponseTime).toBeGreaterThanOrEqual(10e-3);
    expect(v[v.length - 2].figures.meanResponseTime).toBeLessThan(10e-3);
    for (let i = 1; i < v.length; i++) expect(v[i].figures.meanPower).toBeLessThan(v[i - 1].figures.meanPower);
    for (const x of v) expect(x.figures.meanPower).toBeGreaterThan(f.powerBound.infimum);
    // Spot-check three vertices against independent solves at the weight they were found at.
    for (const x of [v[1], v[Math.floor(v.length / 2)], v[v.length - 1]]) {
      const g = await optimumAt(4000, x.solvedAt);
      expect(Math.abs(cost(x, x.solvedAt) - g) / g).toBeLessThan(2e-9);
    }
  });
});
