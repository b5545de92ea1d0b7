import { beforeAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { planScenario, type PlanResult } from '../../src/plan/constrained.js';
import { computeFrontier, type Frontier } from '../../src/plan/frontier.js';
import { DEFAULT_RESOLUTION } from '../../src/plan/search.js';
import { formatDuration } from '../../src/plan/units.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';

const rel = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b);

/** The frontier's piecewise-linear lower boundary: least power at latency T (or least latency at power W). */
function frontierPowerAt(f: Frontier, T: number): number {
  const v = f.vertices.map((x) => x.figures);
  for (let i = 0; i + 1 < v.length; i++) {
    if (v[i].meanResponseTime <= T && T <= v[i + 1].meanResponseTime) {
      const t = (T - v[i].meanResponseTime) / (v[i + 1].meanResponseTime - v[i].meanResponseTime);
      return v[i].meanPower + t * (v[i + 1].meanPower - v[i].meanPower);
    }
  }
  throw new Error(`${T} is outside the frontier`);
}

function frontierLatencyAt(f: Frontier, W: number): number {
  const v = f.vertices.map((x) => x.figures);
  for (let i = 0; i + 1 < v.length; i++) {
    if (v[i].meanPower >= W && W >= v[i + 1].meanPower) {
      const t = (v[i].meanPower - W) / (v[i].meanPower - v[i + 1].meanPower);
      return v[i].meanResponseTime + t * (v[i + 1].meanResponseTime - v[i].meanResponseTime);
    }
  }
  throw new Error(`${W} is outside the frontier`);
}

function isVertex(f: Frontier, x: { meanResponseTime: number; meanPower: number }): boolean {
  return f.vertices.some((v) => rel(v.figures.meanResponseTime, x.meanResponseTime) < 1e-12 && rel(v.figures.meanPower, x.meanPower) < 1e-12);
}

describe('SLO-constrained solves against the frontier (λ = 1500)', () => {
  let f: Frontier;
  beforeAll(async () => {
    f = await computeFrontier(specScenario(1500, 1e-4), { resolution: DEFAULT_RESOLUTION });
  });

  for (const T of [3.9e-3, 5e-3, 6.1e-3]) {
    it(`latency target ${(T * 1e3).toFixed(1)} ms: meets it exactly at the frontier's least power`, async () => {
      const r = await planScenario(specScenario(1500, 1e-4), { kind: 'latency', seconds: T });
      expect(r.status).toBe('binding');
      const m = r.mix!;
      expect(rel(m.figures.meanResponseTime, T)).toBeLessThan(1e-12);
      // The optimum is the frontier's boundary at T (resolution-limited), and a convex combination of its two policies.
      expect(rel(r.optimum.meanPower, frontierPowerAt(f, T))).toBeLessThan(DEFAULT_RESOLUTION);
      expect(rel(m.figures.meanPower, m.timeShare * m.first.meanPower + (1 - m.timeShare) * m.second.meanPower)).toBeLessThan(1e-12);
      expect(m.timeShare).toBeGreaterThan(0);
      expect(m.timeShare).toBeLessThan(1);
      // The switch between the two bracketing vertices themselves reaches the same optimum.
      const vm = r.vertexMix!;
      expect(rel(vm.figures.meanResponseTime, T)).toBeLessThan(1e-12);
      expect(rel(vm.figures.meanPower, r.optimum.meanPower)).toBeLessThan(DEFAULT_RESOLUTION);
      expect(vm.first.policy.actions).toEqual(r.bracket!.lower.policy.actions);
      expect(vm.second.policy.actions).toEqual(r.bracket!.upper.policy.actions);
      // The bracket is a pair of adjacent frontier vertices around T.
      const b = r.bracket!;
      expect(isVertex(f, b.lower) && isVertex(f, b.upper)).toBe(true);
      expect(b.lower.meanResponseTime).toBeLessThanOrEqual(T);
      expect(b.upper.meanResponseTime).toBeGreaterThan(T);
      // The deterministic answer meets T, and no frontier policy with less power does.
      const d = r.deterministic;
      expect(d.meanResponseTime).toBeLessThanOrEqual(T);
      expect(d.meanPower).toBeGreaterThanOrEqual(r.optimum.meanPower);
      for (const v of f.vertices) if (v.figures.meanPower < d.meanPower) expect(v.figures.meanResponseTime).toBeGreaterThan(T);
    });
  }

  for (const W of [88, 80, 75]) {
    it(`power budget ${W} W: stays within it exactly at the frontier's least latency`, async () => {
      const r = await planScenario(specScenario(1500, 1e-4), { kind: 'power', watts: W });
      expect(r.status).toBe('binding');
      expect(rel(r.mix!.figures.meanPower, W)).toBeLessThan(1e-12);
      expect(rel(r.vertexMix!.figures.meanPower, W)).toBeLessThan(1e-12);
      expect(rel(r.optimum.meanResponseTime, frontierLatencyAt(f, W))).toBeLessThan(DEFAULT_RESOLUTION);
      const d = r.deterministic;
      expect(d.meanPower).toBeLessThanOrEqual(W);
      expect(d.meanResponseTime).toBeGreaterThanOrEqual(r.optimum.meanResponseTime);
      for (const v of f.vertices) if (v.figures.meanResponseTime < d.meanResponseTime) expect(v.figures.meanPower).toBeGreaterThan(W);
    });
  }

  it('a slack target returns an end of the frontier without a mix', async () => {
    const loose = await planScenario(specScenario(1500, 1e-4), { kind: 'latency', seconds: 20e-3 });
    expect(loose.status).toBe('slack');
    expect(loose.mix).toBeNull();
    const end = f.vertices[f.vertices.length - 1].figures;
    expect(rel(loose.optimum.meanPower, end.meanPower)).toBeLessThan(1e-12);
    expect(rel(loose.optimum.meanPower, loose.limits.powerBound.infimum)).toBeLessThan(1e-9);
    const rich = await planScenario(specScenario(1500, 1e-4), { kind: 'power', watts: 100 });
    expect(rich.status).toBe('slack');
    expect(rel(rich.optimum.meanResponseTime, f.vertices[0].figures.meanResponseTime)).toBeLessThan(1e-12);
  });
});

describe('infeasible targets', () => {
  const fails = async (r: Promise<PlanResult>): Promise<ScenarioError> => {
    try {
      await r;
    } catch (e) {
      if (e instanceof ScenarioError) return e;
      throw e;
    }
    throw new Error('expected a ScenarioError');
  };

  it('a latency target below the least achievable names that least value', async () => {
    const e = await fails(planScenario(specScenario(4000, 1e-3), { kind: 'latency', seconds: 5e-3 }));
    expect(e.field).toBe('latencyTarget');
    // Least achievable at λ = 4000 (docs/model.md §6's control limit 4 policy at w_pow = 0): 6.9448 ms.
    expect(e.reason).toMatch(/least achievable mean response time is 6\.9448 ms/);
  });

  it('under bursty (MMPP) arrivals an unreachable target names the least achievable latency of the per-phase optimum', async () => {
    const bursty = { ...specScenario(2000, 1e-4), arrivalProcess: { burst: { meanRate: 2000, peakToMean: 2.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } } };
    const least = await solveScenario({ ...bursty, objective: { latencyWeight: 1, powerWeight: 0 } });
    const e = await fails(planScenario(bursty, { kind: 'latency', seconds: 0.5 * least.meanResponseTime }));
    expect(e.field).toBe('latencyTarget');
    expect(e.reason).toContain(`least achievable mean response time is ${formatDuration(least.meanResponseTime)}`);
  });

  it('a power budget below the least possible power names the bound', async () => {
    const e = await fails(planScenario(specScenario(4000, 1e-3), { kind: 'power', watts: 120 }, { targetField: '--power-budget' }));
    expect(e.field).toBe('--power-budget');
    expect(e.reason).toMatch(/least mean power of any stable policy is 133\.3335 W/);
  });
});

describe('heavy traffic (λ = 4000: the least power is only approached)', () => {
  it('a power budget close to the bound is met exactly', async () => {
    const r = await planScenario(specScenario(4000, 1e-3), { kind: 'power', watts: 134 });
    expect(r.status).toBe('binding');
    expect(rel(r.mix!.figures.meanPower, 134)).toBeLessThan(1e-12);
    expect(r.deterministic.meanPower).toBeLessThanOrEqual(134);
    expect(r.limits.powerBound.attained).toBe(false);
  });
});
