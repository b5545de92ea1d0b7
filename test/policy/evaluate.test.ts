import { describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { parsePolicySpec, summarizePolicy } from '../../src/policy/policy.js';
import { evaluateScenarioPolicy } from '../../src/solve/evaluateScenario.js';
import { SPEC_FIT, specScenario } from '../helpers/scenarios.js';

/** Inoue (arXiv 1912.06322): greedy batching with no batch limit, deterministic l(b) = α·b + τ0. */
function inoueMeanResponse(lambda: number, alpha: number, tau0: number): number {
  const rho = lambda * alpha;
  const phi0 = ((alpha + tau0) / (2 * (1 - rho))) * (1 + 2 * lambda * tau0 + (1 - lambda * tau0) / (1 + rho));
  const phi1 = (1.5 * tau0) / (1 - rho) + (alpha / 2) * ((rho + 2) / (1 - rho * rho));
  return Math.min(phi0, phi1);
}

describe('exact evaluation', () => {
  for (const rho of [0.5, 0.9]) {
    it(`greedy matches Inoue's closed form at ρ = ${rho} (1e-5 relative)`, () => {
      const lambda = rho / SPEC_FIT.perItem;
      // B large enough that the batch limit never binds in practice ("no batch limit").
      const { params } = validateScenario({
        ...specScenario(lambda, 0),
        maxBatchSize: 512,
      });
      const ev = evaluatePolicy(params, parsePolicySpec('greedy', 512));
      const ref = inoueMeanResponse(lambda, SPEC_FIT.perItem, SPEC_FIT.base);
      expect(Math.abs(ev.meanResponseTime - ref) / ref).toBeLessThan(1e-5);
      if (rho === 0.5) expect(ref * 1e3).toBeCloseTo(5.9019, 4); // the spec quotes 5.9019 ms
      expect(ev.throughput).toBeCloseTo(lambda, 6);
    });
  }

  it('M/D/1 (B = 1, greedy) matches the Pollaczek–Khinchine formula', () => {
    const lambda = 300;
    const l = 0.002;
    const { params } = validateScenario({
      arrivalRate: lambda,
      maxBatchSize: 1,
      serviceTime: { linear: { perItem: 0, base: l } },
      power: { idleWatts: 10, busyLinear: { perItem: 0, base: 50 } },
      objective: { latencyWeight: 1, powerWeight: 1e-3 },
    });
    const ev = evaluatePolicy(params, parsePolicySpec('greedy', 1));
    const rho = lambda * l;
    const pk = l + (lambda * l * l) / (2 * (1 - rho));
    expect(Math.abs(ev.meanResponseTime - pk) / pk).toBeLessThan(1e-12);
    expect(ev.utilization).toBeCloseTo(rho, 12);
    expect(ev.meanPower).toBeCloseTo(rho * 50 + (1 - rho) * 10, 10);
    expect(ev.averageCost).toBeCloseTo(pk + 1e-3 * ev.meanPower, 14);
  });

  it('M/M/1 (B = 1, exponential) matches 1/(μ − λ)', () => {
    const lambda = 300;
    const l = 0.002;
    const { params } = validateScenario({
      arrivalRate: lambda,
      maxBatchSize: 1,
      serviceTime: { linear: { perItem: 0, base: l }, distribution: 'EXPONENTIAL' },
      power: { idleWatts: 0, busyLinear: { perItem: 0, base: 0 } },
      objective: { latencyWeight: 1 },
    });
    const ev = evaluatePolicy(params, parsePolicySpec('greedy', 1));
    expect(Math.abs(ev.meanResponseTime - 1 / (1 / l - lambda)) * (1 / l - lambda)).toBeLessThan(1e-12);
  });

  it('static:b serves exactly b and waits below it', () => {
    const r = evaluateScenarioPolicy(specScenario(1500, 1e-4), 'static:8');
    expect(r.meanBatchSize).toBeCloseTo(8, 12);
    expect(r.policy.controlLimit).toBe(8);
    expect(r.policy.isControlLimit).toBe(false); // tailBatch 8 < B = 32
  });

  it('an unstable policy is refused with the bound', () => {
    expect(() => evaluateScenarioPolicy(specScenario(4000, 1e-4), 'static:3')).toThrow(/policy: is unstable.*3\/l\(3\)/);
  });

  it('policy specs are parsed and checked', () => {
    expect(Array.from(parsePolicySpec('control-limit:5', 32).actions)).toEqual([0, 0, 0, 0, 0]);
    expect(Array.from(parsePolicySpec('table:0,0,2,3', 32).actions)).toEqual([0, 0, 2, 3]);
    expect(() => parsePolicySpec('table:0,2', 32)).toThrow(/policy\.actions\[1\]: must be 0 \(wait\) or a batch size in 1\.\.min\(s, maxBatchSize\) = 1\.\.1/);
    expect(() => parsePolicySpec('table:1', 32)).toThrow(/policy\.actions\[0\]/);
    expect(() => parsePolicySpec('static:40', 32)).toThrow(/policy: static:b batch size b must be in 1\.\.32/);
    expect(() => parsePolicySpec('fastest', 32)).toThrow(/unknown policy "fastest"/);
    const sum = summarizePolicy(parsePolicySpec('table:0,0,2,3,3,3', 4), 4);
    expect(sum.controlLimit).toBe(2);
    expect(sum.isControlLimit).toBe(false);
    expect(sum.deviations).toEqual([
      { queue: 4, action: 3, controlLimitAction: 4 },
      { queue: 5, action: 3, controlLimitAction: 4 },
    ]);
  });
});
