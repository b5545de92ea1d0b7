import { describe, expect, it } from 'vitest';
import { formatPlan } from '../../src/cli/commands/plan.run.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { planScenario } from '../../src/plan/constrained.js';
import { exportPolicy } from '../../src/plan/export/exportPolicy.js';
import { sizeFleet } from '../../src/plan/fleet.js';
import { computeFrontier } from '../../src/plan/frontier.js';
import { differingStates } from '../../src/plan/mix.js';
import { actionAt, type Policy } from '../../src/policy/policy.js';
import { policyOf } from '../../src/solve/result.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { denseSwitchingMix, type DenseSystem } from './denseMix.js';

/**
 * Planning under bursty (MMPP) arrivals: two phases, 300 and 1200 /s (mean 600 /s, a third of
 * the time in the busy phase), B = 8, l(b) = 0.5 ms·b + 2 ms (capacity 1333 /s). The
 * independent dense evaluator of denseMix.ts (counting matrices by inverse DFT, Van Loan
 * integrals, Gaussian elimination) checks every figure.
 */
const RATES = [300, 1200];
const Q = [-20, 20, 40, -40];
const scenarioAt = (scale: number): Scenario => ({
  arrivalRate: 0,
  maxBatchSize: 8,
  serviceTime: { linear: { perItem: 0.0005, base: 0.002 }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 30, busyLinear: { perItem: 5, base: 60 } },
  objective: { latencyWeight: 1, powerWeight: 0 },
  arrivalProcess: { mmpp: { rates: RATES.map((r) => r * scale), generator: Q } },
});
const SC = scenarioAt(1);
const systemAt = (scale: number): DenseSystem => ({
  rates: RATES.map((r) => r * scale),
  Q,
  l: (b) => 0.0005 * b + 0.002,
  P: (b) => 60 + 5 * b,
  P0: 30,
});
const B = 8;
const M = 2;
const rel = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b);
const act = (p: Policy) => (s: number, j: number) => actionAt(p, s, j);
/** A deterministic policy as a mix with itself: the dense chain's figures of that policy. */
const dense = (t: DenseSystem, p: Policy) => denseSwitchingMix(t, act(p), act(p), 0, 1);

describe('the latency–power frontier under MMPP arrivals', () => {
  it('has per-phase vertices whose figures an independent dense evaluation reproduces, down to the power bound', async () => {
    const f = await computeFrontier(SC);
    expect(f.vertices.length).toBeGreaterThan(3);
    for (let i = 0; i + 1 < f.vertices.length; i++) {
      expect(f.vertices[i + 1].figures.meanResponseTime).toBeGreaterThan(f.vertices[i].figures.meanResponseTime);
      expect(f.vertices[i + 1].figures.meanPower).toBeLessThan(f.vertices[i].figures.meanPower);
    }
    for (let i = 0; i + 1 < f.breakpoints.length; i++) expect(f.breakpoints[i + 1]).toBeLessThan(f.breakpoints[i]);
    const picks = [0, Math.floor(f.vertices.length / 2), f.vertices.length - 1];
    for (const i of picks) {
      const v = f.vertices[i];
      expect(v.policy.phases).toBe(M);
      const d = dense(systemAt(1), v.policy);
      expect(rel(d.meanResponseTime, v.figures.meanResponseTime)).toBeLessThan(1e-9);
      expect(rel(d.meanPower, v.figures.meanPower)).toBeLessThan(1e-9);
    }
    // The least-power end: serve batches of the b with the least extra energy per request over
    // idling, (P(b) − P0)·l(b)/b, among those that keep up with the mean rate (the traffic's
    // burstiness does not enter the long-run energy balance).
    let perRequest = Infinity;
    for (let b = 1; b <= B; b++) if ((600 * (0.0005 * b + 0.002)) / b < 1) perRequest = Math.min(perRequest, ((30 + 5 * b) * (0.0005 * b + 0.002)) / b);
    const least = 30 + 600 * perRequest;
    expect(f.complete).toBe(true);
    expect(rel(f.powerBound.infimum, least)).toBeLessThan(1e-12);
    expect(rel(f.vertices[f.vertices.length - 1].figures.meanPower, least)).toBeLessThan(1e-6);
  });
});

describe('plans under MMPP arrivals', () => {
  it('a latency target: the mix tosses its coin at a (queue, phase) state and lands on the target, certified by duality', async () => {
    const least = await computeFrontier(SC, { maxLatency: 0.011 });
    const target = 1.4 * least.vertices[0].figures.meanResponseTime;
    const plan = await planScenario(SC, { kind: 'latency', seconds: target });
    expect(plan.status).toBe('binding');
    const m = plan.mix!;
    const first = policyOf(m.first.policy, B);
    const second = policyOf(m.second.policy, B);
    expect(m.first.policy.phases).toHaveLength(M);
    const coin = m.state * M + m.phase;
    if (m.kind === 'single-state') expect(differingStates(first, second)).toEqual([coin]);
    expect(m.actions).toEqual([actionAt(first, m.state, m.phase), actionAt(second, m.state, m.phase)]);
    expect(rel(m.figures.meanResponseTime, target)).toBeLessThan(1e-9);
    const d = denseSwitchingMix(systemAt(1), act(first), act(second), coin, m.probability);
    expect(rel(d.meanResponseTime, target)).toBeLessThan(1e-9);
    expect(rel(d.meanPower, m.figures.meanPower)).toBeLessThan(1e-9);
    // Weak duality: every policy with E[R] ≤ T has E[P] ≥ g*(μ) − μ·T at the bracket's weight μ,
    // and the mix attains it, so it is the constrained optimum.
    const mu = plan.bracket!.weight;
    const g = await solveScenario({ ...SC, objective: { latencyWeight: mu, powerWeight: 1 } });
    const attained = m.figures.meanPower + mu * target;
    expect(attained).toBeGreaterThanOrEqual(g.averageCostLower * (1 - 1e-8));
    expect(attained).toBeLessThanOrEqual(g.averageCostUpper * (1 + 1e-8));
    // The CLI names the phase of the coin's state and prints one table per phase.
    const text = formatPlan(plan, B).join('\n');
    expect(text).toContain(`queue length is ${m.state} in arrival phase ${m.phase}`);
    expect(text).toMatch(/phase 1 \(λ = 1200\.00 \/s, 33\.3 % of the time\)/);
  });

  it('a power budget: the mix spends exactly the budget', async () => {
    const f = await computeFrontier(SC, { maxLatency: 0.02 });
    const budget = (f.vertices[1].figures.meanPower + f.vertices[2].figures.meanPower) / 2 + 0.1;
    const plan = await planScenario(SC, { kind: 'power', watts: budget });
    expect(plan.status).toBe('binding');
    const m = plan.mix!;
    expect(rel(m.figures.meanPower, budget)).toBeLessThan(1e-9);
    const d = denseSwitchingMix(systemAt(1), act(policyOf(m.first.policy, B)), act(policyOf(m.second.policy, B)), m.state * M + m.phase, m.probability);
    expect(rel(d.meanPower, budget)).toBeLessThan(1e-9);
    expect(plan.deterministic.meanPower).toBeLessThanOrEqual(budget);
  });
});

describe('fleet sizing under MMPP arrivals', () => {
  it('splits the bursty traffic by random routing: each accelerator sees the same phases at Λ/n', async () => {
    const total = 1800; // three times the scenario's mean rate
    const r = await sizeFleet(SC, { totalRate: total, latencyTarget: 0.012 });
    const n = r.accelerators;
    const scale = total / n / 600;
    expect(rel(r.at.plan.optimum.throughput, total / n)).toBeLessThan(1e-9);
    const det = policyOf(r.at.plan.deterministic.policy, B);
    const d = dense(systemAt(scale), det);
    expect(d.meanResponseTime).toBeLessThanOrEqual(0.012 * (1 + 1e-9));
    expect(rel(d.meanPower, r.at.plan.deterministic.meanPower)).toBeLessThan(1e-9);
    // One fewer accelerator cannot meet the target with any policy: its least-latency solve misses it.
    expect(n).toBeGreaterThan(1); // 1800 /s is beyond one accelerator's 1333 /s
    const fewer = await solveScenario(scenarioAt(total / (n - 1) / 600));
    expect(fewer.meanResponseTime).toBeGreaterThan(0.012);
  });
});

describe('export under MMPP arrivals', () => {
  it('simulates the per-phase optimum on MMPP arrivals: its simulated cost covers the exact g*', async () => {
    const scenario = validateScenario({ ...SC, objective: { latencyWeight: 1, powerWeight: 1e-4 } });
    const r = await exportPolicy(scenario, 'triton', { requests: 200_000, tuningRequests: 40_000 });
    const sim = r.optimal.simulated;
    expect(sim.halfWidth).not.toBeNull();
    expect(Math.abs(sim.averageCost - r.optimal.averageCost)).toBeLessThanOrEqual(3 * sim.halfWidth!);
    // No timeout setting beats the optimal policy by more than the paired noise.
    expect(r.gap.difference + 3 * (r.gap.halfWidth ?? 0)).toBeGreaterThan(0);
  });
});
