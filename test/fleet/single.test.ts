import { describe, expect, it } from 'vitest';
import { RandomRouter, RoundRobin } from '../../src/fleet/routers.js';
import { validateFleet } from '../../src/fleet/scenario.js';
import { simulateFleet } from '../../src/fleet/simulate.js';
import { validateScenario } from '../../src/model/validate.js';
import { parsePolicySpec } from '../../src/policy/policy.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { buildSimPolicy, parseSimPolicySpec } from '../../src/sim/policySpec.js';
import { simulate } from '../../src/sim/simulate.js';
import { singleClassFleet, V100 } from './helpers.js';

describe('a fleet of one accelerator is the single-server simulator', () => {
  // Both run the one engine (src/sim/engine); what can differ is how each reads its output.
  for (const policy of ['greedy', 'control-limit:6', 'triton:delay=1ms,max=16', 'aimd:slo=4ms']) {
    it(`same seed, same numbers (${policy})`, () => {
      const params = validateScenario(V100).params;
      const single = simulate(params, buildSimPolicy(parseSimPolicySpec(policy, 32), params), { requests: 50_000, seed: 7 });
      const fleet = simulateFleet(validateFleet(singleClassFleet(V100, 1, V100.arrivalRate, policy)), new RoundRobin(1), { requests: 50_000, seed: 7 });
      const c = fleet.classes[0];
      const a = fleet.accelerators[0];
      expect(c.requests).toBe(single.requests);
      expect(fleet.warmupRequests).toBe(single.warmupRequests);
      expect(fleet.simulatedSeconds).toBe(single.simulatedSeconds);
      expect(c.meanResponseTime).toBe(single.meanResponseTime);
      expect(c.p50).toBe(single.percentiles.p50);
      expect(c.p99).toBe(single.percentiles.p99);
      expect(c.max).toBe(single.percentiles.max);
      expect(c.meanResponseCi).toBe(single.confidence.meanResponseTime);
      expect(fleet.meanPower).toBe(single.meanPower);
      expect(fleet.meanPowerCi).toBe(single.confidence.meanPower);
      expect(fleet.averageCost).toBe(single.averageCost);
      expect(fleet.averageCostCi).toBe(single.confidence.averageCost);
      expect(a.batches).toBe(single.batches);
      expect(a.utilization).toBe(single.utilization);
      expect(a.meanBatchSize).toBe(single.meanBatchSize);
      expect(c.meanHeadOfLineBlocking).toBe(0);
    });
  }

  for (const policy of ['greedy', 'control-limit:6']) {
    it(`matches the exact evaluation within its CI (${policy})`, () => {
      const exact = evaluatePolicy(validateScenario(V100).params, parsePolicySpec(policy, 32));
      const r = simulateFleet(validateFleet(singleClassFleet(V100, 1, V100.arrivalRate, policy)), new RoundRobin(1), { requests: 400_000, seed: 5 });
      const c = r.classes[0];
      expect(Math.abs(c.meanResponseTime - exact.meanResponseTime)).toBeLessThan(c.meanResponseCi ?? 0);
      expect(Math.abs(r.meanPower - exact.meanPower)).toBeLessThan(r.meanPowerCi ?? 0);
      expect(Math.abs(r.averageCost - exact.averageCost)).toBeLessThan(r.averageCostCi ?? 0);
      expect(Math.abs(r.accelerators[0].utilization - exact.utilization)).toBeLessThan(0.01);
    });
  }
});

describe('N identical accelerators under a random router are N queues at λ/N', () => {
  it('mean response time within the CI of the exact evaluation at λ/N', () => {
    const N = 3;
    const total = 5400;
    const fleet = validateFleet(singleClassFleet(V100, N, total, 'control-limit:5'));
    const r = simulateFleet(fleet, new RandomRouter(N, 11), { requests: 400_000, seed: 3 });
    const exact = evaluatePolicy(validateScenario({ ...V100, arrivalRate: total / N }).params, parsePolicySpec('control-limit:5', 32));
    const c = r.classes[0];
    expect(Math.abs(c.meanResponseTime - exact.meanResponseTime)).toBeLessThan(c.meanResponseCi ?? 0);
    expect(Math.abs(r.meanPower - N * exact.meanPower)).toBeLessThan(r.meanPowerCi ?? 0);
    for (const a of r.accelerators) {
      expect(a.throughput).toBeGreaterThan((0.97 * total) / N);
      // Batches still running at the stop count only inside the window.
      expect(a.utilization).toBeLessThanOrEqual(1);
      expect(Math.abs(a.utilization - exact.utilization)).toBeLessThan(0.02);
    }
  });
});
