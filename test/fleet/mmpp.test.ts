import { describe, expect, it } from 'vitest';
import { runFleet } from '../../src/fleet/run.js';
import { RoundRobin, ShortestQueue, simpleRouter } from '../../src/fleet/routers.js';
import { validateFleet, type FleetScenario } from '../../src/fleet/scenario.js';
import { planSegregation } from '../../src/fleet/segregation.js';
import { simulateFleet } from '../../src/fleet/simulate.js';
import { ScenarioError } from '../../src/model/errors.js';
import type { ArrivalProcessSpec } from '../../src/model/mmpp/spec.js';
import { validateScenario } from '../../src/model/validate.js';
import { MmppTablePolicy } from '../../src/sim/mmpp.js';
import { buildSimPolicy, parseSimPolicySpec } from '../../src/sim/policySpec.js';
import { simulate } from '../../src/sim/simulate.js';
import { policyOf } from '../../src/solve/result.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { twoClassFleet, V100 } from './helpers.js';

/** Bursts at twice the mean rate, 50 ms long, every 200 ms on average (two phases). */
const BURST: ArrivalProcessSpec = { burst: { meanRate: 2000, peakToMean: 2, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } };

function oneClass(arrivalProcess: ArrivalProcessSpec, count: number, policy: string): FleetScenario {
  return {
    classes: [{ name: 'only', arrivalProcess }],
    accelerators: [{ name: 'gpu', count, maxBatchSize: V100.maxBatchSize, serviceTime: { only: V100.serviceTime }, power: V100.power, policy }],
    objective: { latencyWeight: V100.objective.latencyWeight, powerWeight: V100.objective.powerWeight },
  };
}

/** The two-class mix with the vision class's arrivals replaced. */
function withVision(arrivalProcess: ArrivalProcessSpec | undefined, count: number): FleetScenario {
  const f = twoClassFleet(count, 1);
  const [vision, language] = f.classes;
  return { ...f, classes: [arrivalProcess ? { name: vision.name, arrivalProcess, latencyTarget: vision.latencyTarget } : vision, language] };
}

describe('MMPP request classes', () => {
  it('one accelerator, one MMPP class: the single-server MMPP simulator, bit for bit', () => {
    const params = validateScenario({ ...V100, arrivalRate: 0, arrivalProcess: BURST }).params;
    for (const policy of ['greedy', 'control-limit:6']) {
      const single = simulate(params, buildSimPolicy(parseSimPolicySpec(policy, 32), params), { requests: 40_000, seed: 5 });
      const fleet = simulateFleet(validateFleet(oneClass(BURST, 1, policy)), new RoundRobin(1), { requests: 40_000, seed: 5 });
      expect(single.arrivals).toBe('mmpp');
      const c = fleet.classes[0];
      expect(c.requests, policy).toBe(single.requests);
      expect(fleet.simulatedSeconds).toBe(single.simulatedSeconds);
      expect(c.meanResponseTime).toBe(single.meanResponseTime);
      expect(c.p99).toBe(single.percentiles.p99);
    }
  });

  it('a one-phase MMPP class is the Poisson class (within the CI, same seed)', () => {
    const mmpp = withVision({ mmpp: { rates: [1500], generator: [0] } }, 2);
    const poisson = withVision(undefined, 2);
    expect(validateFleet(mmpp).classes[0].arrivalRate).toBe(1500);
    const a = simulateFleet(validateFleet(mmpp), new ShortestQueue(), { requests: 200_000, seed: 9 });
    const b = simulateFleet(validateFleet(poisson), new ShortestQueue(), { requests: 200_000, seed: 9 });
    for (let c = 0; c < 2; c++) {
      const x = a.classes[c];
      const y = b.classes[c];
      expect(Math.abs(x.meanResponseTime - y.meanResponseTime), x.name).toBeLessThan((x.meanResponseCi ?? 0) + (y.meanResponseCi ?? 0));
      expect(Math.abs(x.throughput - y.throughput) / y.throughput).toBeLessThan(0.02);
    }
    // Not the same stream (the MMPP source draws its start phase first), so not trivially equal.
    expect(a.classes[0].meanResponseTime).not.toBe(b.classes[0].meanResponseTime);
  });

  it('bursty arrivals give a higher p99 than Poisson at the same mean rate, same router', () => {
    // Two V100s at 4000 /s in all; bursts at twice that for 50 ms every 250 ms.
    const bursty = validateFleet(oneClass({ burst: { ...BURST.burst!, meanRate: 4000 } }, 2, 'greedy'));
    expect(bursty.classes[0].arrivalRate).toBeCloseTo(4000, 9);
    const poisson = validateFleet({ ...oneClass(BURST, 2, 'greedy'), classes: [{ name: 'only', arrivalRate: 4000 }] });
    for (const router of ['jsq', 'round-robin'] as const) {
      const a = simulateFleet(bursty, simpleRouter(router, 2, 1, 2), { requests: 200_000, seed: 2 }).classes[0];
      const b = simulateFleet(poisson, simpleRouter(router, 2, 1, 2), { requests: 200_000, seed: 2 }).classes[0];
      expect(Math.abs(a.throughput - 4000) / 4000, router).toBeLessThan(0.05);
      expect(a.p99, router).toBeGreaterThan(1.2 * b.p99);
      expect(a.meanResponseTime - b.meanResponseTime, router).toBeGreaterThan((a.meanResponseCi ?? Infinity) + (b.meanResponseCi ?? Infinity));
    }
  });

  it('segregation solves each MMPP group exactly (per-phase policy) and its simulation is the single-server MMPP one', async () => {
    // Short bursts at three times the mean rate (a small exact model, so the solves are quick).
    const light: ArrivalProcessSpec = { burst: { meanRate: 1000, peakToMean: 3, meanBurstSeconds: 0.01, meanGapSeconds: 0.04 } };
    // Two accelerators for one bursty class at 2000 /s: each sees the MMPP with the same phases at half the rates.
    const two = validateFleet(oneClass({ burst: { ...light.burst!, meanRate: 2000 } }, 2, 'greedy'));
    const plan = (await planSegregation(two))!;
    expect(plan.groups.length).toBe(1);
    const g = plan.groups[0];
    expect(g.phases?.length).toBe(2);
    const proc = two.classes[0].arrivalProcess!;
    // Reference: the single-server MMPP scenario written out by hand, with the fleet objective's
    // weight for one of two accelerators (w_lat·λ/(Λ·n) = 1/2).
    const pw = V100.objective.powerWeight ?? 0;
    const half = validateScenario({
      ...V100,
      arrivalRate: 0,
      arrivalProcess: { mmpp: { rates: Array.from(proc.rates, (r) => r / 2), generator: Array.from(proc.generator) } },
      objective: { latencyWeight: 0.5, powerWeight: pw },
    });
    const ref = await solveScenario(half);
    expect(g.meanResponseTime).toBeCloseTo(ref.meanResponseTime, 12);
    expect(g.meanPower).toBeCloseTo(ref.meanPower, 9);
    expect(g.controlLimit).toBe(ref.policy.controlLimit);
    expect(plan.averageCost).toBeCloseTo(ref.meanResponseTime + 2 * pw * ref.meanPower, 12);
    // It differs from the Poisson plan at the same mean rate (burstiness costs latency).
    const poisson = (await planSegregation(validateFleet({ ...oneClass(light, 2, 'greedy'), classes: [{ name: 'only', arrivalRate: 2000 }] })))!;
    expect(plan.classes[0].meanResponseTime).toBeGreaterThan(poisson.classes[0].meanResponseTime * 1.01);

    // One accelerator: the segregated simulation runs the phase-aware optimum exactly as `simulate` does.
    const run = await runFleet(validateFleet(oneClass(light, 1, 'greedy')), 'segregation', { requests: 60_000, seed: 3 });
    const scenario = validateScenario({ ...V100, arrivalRate: 0, arrivalProcess: light });
    const solved = await solveScenario(scenario);
    expect(run.plan!.groups[0].actions).toEqual(solved.policy.actions);
    const single = simulate(scenario.params, new MmppTablePolicy(policyOf(solved.policy, 32), 'optimal'), { requests: 60_000, seed: 3 });
    const c = run.simulation.classes[0];
    expect(c.meanResponseTime).toBe(single.meanResponseTime);
    expect(c.p99).toBe(single.percentiles.p99);
    // …and agrees with the plan's exact mean within the CI.
    expect(Math.abs(c.meanResponseTime - run.plan!.classes[0].meanResponseTime)).toBeLessThan(2 * (c.meanResponseCi ?? 0));
  });

  it('validation names the bad field', () => {
    const cases: [unknown, string, RegExp][] = [
      [{ mmpp: { rates: [100, 2000], generator: [-1, 1, 1, 0] } }, 'classes[0].arrivalProcess.mmpp.generator', /row 1 sums to 1/],
      [{ mmpp: { rates: [100, 2000], generator: [[-1, 1], [0, 0]] } }, 'classes[0].arrivalProcess.mmpp.generator', /reducible/],
      [{ mmpp: { rates: [100, -5], generator: [-1, 1, 1, -1] } }, 'classes[0].arrivalProcess.mmpp.rates[1]', /≥ 0/],
      [{ burst: { meanRate: 1500, peakToMean: 9, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } }, 'classes[0].arrivalProcess.burst.peakToMean', /≤ 1 \+ meanGapSeconds/],
      [{ burst: { meanRate: 1500, peakToMean: 2, meanBurstSeconds: 0.05 } }, 'classes[0].arrivalProcess.burst.meanGapSeconds', /is required/],
      [{}, 'classes[0].arrivalProcess', /needs one of mmpp, burst, trace/],
      [{ poisson: {} }, 'classes[0].arrivalProcess.poisson', /is not a known field/],
    ];
    for (const [proc, field, reason] of cases) {
      const f = withVision(proc as ArrivalProcessSpec, 2);
      let e: unknown;
      try {
        validateFleet(f);
      } catch (x) {
        e = x;
      }
      expect(e, field).toBeInstanceOf(ScenarioError);
      expect((e as ScenarioError).field).toBe(field);
      expect((e as ScenarioError).reason).toMatch(reason);
    }
    // An arrivalRate beside the process must be its mean rate.
    const mismatch = withVision(BURST, 2);
    (mismatch.classes[0] as { arrivalRate?: number }).arrivalRate = 1500;
    expect(() => validateFleet(mismatch)).toThrow(/^classes\[0\]\.arrivalRate: is 1500 \/s but arrivalProcess has mean rate/);
    // The mean rate counts for the fleet's capacity check.
    expect(() => validateFleet(withVision({ ...BURST, burst: { ...BURST.burst!, meanRate: 30_000 } }, 2))).toThrow(/^classes: need /);
  });
});
