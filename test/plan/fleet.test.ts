import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { planScenario } from '../../src/plan/constrained.js';
import { sizeFleet } from '../../src/plan/fleet.js';
import { simulate } from '../../src/sim/simulate.js';
import { validateScenario } from '../../src/model/validate.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specCapacity, specScenario } from '../helpers/scenarios.js';

/** Least mean response time one accelerator can reach at rate λ: an ordinary solve with weights (1, 0). */
async function minLatency(lambda: number): Promise<number> {
  const sc = specScenario(lambda, 0);
  sc.objective = { latencyWeight: 1, powerWeight: 0 };
  return (await solveScenario(sc)).meanResponseTime;
}

describe('fleet sizing agrees with independent per-accelerator solves', () => {
  it('20 000 /s at a 6 ms mean: the least n, and the fleet power at n and n + 1', async () => {
    const total = 20_000;
    const T = 6e-3;
    const r = await sizeFleet(specScenario(1000, 1e-4), { totalRate: total, latencyTarget: T });
    const n = r.accelerators;
    // n − 1 accelerators cannot: unstable, or their least achievable latency misses T.
    const below = total / (n - 1);
    expect(below).toBeLessThan(specCapacity(32));
    expect(await minLatency(below)).toBeGreaterThan(T);
    expect(await minLatency(total / n)).toBeLessThanOrEqual(T);
    expect(r.rejected.map((x) => x.accelerators)).toContain(n - 1);
    // Fleet power = n × the per-accelerator SLO-constrained optimum, solved independently.
    for (const [k, pt] of [[n, r.at] as const, [n + 1, r.next] as const]) {
      const plan = await planScenario(specScenario(total / k, 1e-4), { kind: 'latency', seconds: T });
      expect(pt.accelerators).toBe(k);
      expect(pt.ratePerAccelerator).toBe(total / k);
      expect(Math.abs(pt.fleetPower - k * plan.optimum.meanPower) / pt.fleetPower).toBeLessThan(1e-12);
      expect(Math.abs(pt.fleetPowerDeterministic - k * plan.deterministic.meanPower) / pt.fleetPower).toBeLessThan(1e-12);
      expect(pt.plan.optimum.meanResponseTime).toBeLessThanOrEqual(T * (1 + 1e-12));
    }
  });

  it('with a p99 target the policy run meets it by its exact p99 (deterministic service), which the simulator confirms', async () => {
    const r = await sizeFleet(specScenario(1000, 1e-4), {
      totalRate: 20_000,
      latencyTarget: 10e-3,
      p99Target: 15e-3,
      simulation: { requests: 50_000, seed: 3 },
    });
    const t = r.at.tail!;
    expect(t.p99Method).toBe('exact');
    expect(t.p99).toBeLessThanOrEqual(15e-3);
    expect(t.meanResponseTime).toBeLessThanOrEqual(10e-3);
    expect(Math.abs(r.at.fleetPower - r.accelerators * t.meanPower)).toBeLessThan(1e-9);
    const params = validateScenario(specScenario(20_000 / r.accelerators, 1e-4)).params;
    if (t.policy === 'plan') {
      // An independent reference: the simulator's p99 of the same policy (200k requests: ~2 000 past
      // the p99, so its sampling error is a few per cent at most).
      const sim = simulate(params, { actions: Int32Array.from(r.at.plan.deterministic.policy.actions), tailBatch: 32 }, { requests: 200_000, seed: 3 });
      expect(Math.abs(sim.percentiles.p99 - t.p99) / t.p99).toBeLessThan(0.05);
    } else {
      expect(t.planP99).toBeGreaterThan(15e-3);
    }
  });

  it('refuses a mean target no fleet can meet, naming the shortest service time', async () => {
    await expect(sizeFleet(specScenario(1000, 1e-4), { totalRate: 20_000, latencyTarget: 1e-3 })).rejects.toThrow(ScenarioError);
    await expect(sizeFleet(specScenario(1000, 1e-4), { totalRate: 20_000, latencyTarget: 1e-3 })).rejects.toThrow(/shortest is 2\.0312 ms/);
  });
});
