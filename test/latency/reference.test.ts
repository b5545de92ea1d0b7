import { describe, expect, it } from 'vitest';
import { compileModel } from '../../src/model/compile.js';
import type { Distribution, Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { responseTimeDistribution, responseTimeLaw as lawOf } from '../../src/latency/distribution.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import type { Policy } from '../../src/policy/policy.js';

/** One server, B = 1: the classical single-server queue. */
function single(lambda: number, D: number, distribution: Distribution): Scenario {
  return {
    arrivalRate: lambda,
    maxBatchSize: 1,
    serviceTime: { linear: { perItem: D, base: 0 }, distribution },
    power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
    objective: { latencyWeight: 1, powerWeight: 0 },
  };
}

const serveAll: Policy = { actions: Int32Array.of(0), tailBatch: 1 };

function distributionOf(s: Scenario) {
  const p = validateScenario(s).params;
  const model = compileModel(p, 8);
  const ev = evaluatePolicy(p, serveAll);
  const law = lawOf(model, serveAll, ev);
  return { ev, d: Object.assign(responseTimeDistribution(model, serveAll, ev), { law }) };
}

/** P(R ≤ t) straight from the law the distribution was summarised from. */
function responseTimeLaw(d: { law: ReturnType<typeof lawOf> }, t: number): number {
  return d.law.cdf(t);
}

/** P(W ≤ t) of M/D/1 (the closed form of docs/model.md §9), stable for t ≤ ~30·D. */
function mdWait(t: number, lambda: number, D: number): number {
  const rho = lambda * D;
  let sum = 0;
  for (let k = 0; k <= Math.floor(t / D); k++) {
    const x = lambda * (k * D - t);
    let term = Math.exp(-x);
    for (let i = 1; i <= k; i++) term *= x / i;
    sum += term;
  }
  return (1 - rho) * sum;
}

describe('response-time distribution against the single-server closed forms', () => {
  it('M/M/1: R ~ Exp(μ − λ)', () => {
    const lambda = 700;
    const D = 1e-3;
    const { d } = distributionOf(single(lambda, D, 'EXPONENTIAL'));
    const rate = 1 / D - lambda;
    for (let i = 0; i < d.grid.length; i++) expect(Math.abs(d.cdf[i] - (1 - Math.exp(-rate * d.grid[i])))).toBeLessThan(1e-7);
    const ps = [0.5, 0.9, 0.95, 0.99, 0.999];
    const got = [d.percentiles.p50, d.percentiles.p90, d.percentiles.p95, d.percentiles.p99, d.percentiles.p999];
    ps.forEach((p, i) => {
      const exact = -Math.log(1 - p) / rate;
      expect(Math.abs(got[i] - exact) / exact).toBeLessThan(1e-4);
    });
    expect(Math.abs(d.mean - 1 / rate) * rate).toBeLessThan(1e-9);
    expect(d.accuracy.percentileRelative).toBeLessThan(1e-4);
  });

  for (const rho of [0.3, 0.7, 0.9]) {
    it(`M/D/1 at ρ = ${rho}: R = D + W, the closed form of docs/model.md §9`, () => {
      const D = 2e-3;
      const lambda = rho / D;
      const { d, ev } = distributionOf(single(lambda, D, 'DETERMINISTIC'));
      expect(d.method).toBe('mixture');
      const F = (t: number) => (t < D ? 0 : mdWait(t - D, lambda, D));
      // The closed form is an alternating sum with terms up to e^(λt): its rounding stays < 1e-11 for λt ≤ 8.
      const stable = (t: number) => lambda * t <= 8;
      let checked = 0;
      for (let i = 0; i < d.grid.length; i++) {
        if (!stable(d.grid[i])) continue;
        expect(Math.abs(d.cdf[i] - F(d.grid[i]))).toBeLessThan(1e-10);
        checked++;
      }
      // and between the grid points, next to every kink at a multiple of D
      for (let t = D; stable(t); t += D / 16) {
        expect(Math.abs(responseTimeLaw(d, t) - F(t))).toBeLessThan(1e-10);
        checked++;
      }
      expect(checked).toBeGreaterThan(20);
      const ps = [0.5, 0.9, 0.95, 0.99, 0.999];
      const got = [d.percentiles.p50, d.percentiles.p90, d.percentiles.p95, d.percentiles.p99, d.percentiles.p999];
      ps.forEach((p, i) => {
        const t = got[i];
        if (!stable(t)) return;
        // the reference's own quantile brackets it within 1e-6 relative
        expect(F(t * (1 + 1e-6))).toBeGreaterThanOrEqual(p);
        expect(F(t * (1 - 1e-6))).toBeLessThan(p);
      });
      expect(d.accuracy.percentileRelative).toBeLessThan(1e-4);
      expect(d.accuracy.cdf).toBeLessThan(1e-9);
      // Pollaczek–Khinchine: E[R] = D + λD²/(2(1 − ρ)).
      expect(Math.abs(d.mean - (D + (lambda * D * D) / (2 * (1 - rho)))) / d.mean).toBeLessThan(1e-12);
      expect(Math.abs(d.mean - ev.meanResponseTime) / d.mean).toBeLessThan(1e-12);
    });
  }
});
