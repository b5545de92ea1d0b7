import { describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { controlLimitPolicy, greedyPolicy } from '../../src/policy/policy.js';
import { poissonArrivalTimes } from '../../src/sim/arrivals.js';
import { TritonPolicy } from '../../src/sim/policies/triton.js';
import { simulate } from '../../src/sim/simulate.js';
import { formatTrace, parseTrace } from '../../src/sim/trace.js';
import { specScenario } from '../helpers/scenarios.js';

const { params } = validateScenario(specScenario(4000, 1e-3, { serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'GAMMA', cv: 0.7 } }));
const B = params.maxBatchSize;

describe('reproducibility', () => {
  it('the same seed gives the same output, bit for bit; another seed does not', () => {
    const triton = new TritonPolicy({ maxQueueDelay: 1e-3, preferredBatchSizes: [8, 16, 32], maxBatchSize: B });
    const a = simulate(params, triton, { requests: 50_000, seed: 5 });
    const b = simulate(params, triton, { requests: 50_000, seed: 5 });
    expect(b).toEqual(a);
    const c = simulate(params, triton, { requests: 50_000, seed: 6 });
    expect(c.meanResponseTime).not.toBe(a.meanResponseTime);
  });

  it('one seed gives every policy the same arrivals (common random numbers)', () => {
    // Greedy and control-limit:1 are the same policy, written twice.
    const a = simulate(params, greedyPolicy(B), { requests: 20_000, seed: 9 });
    const b = simulate(params, controlLimitPolicy(1, B), { requests: 20_000, seed: 9 });
    expect(b.meanResponseTime).toBe(a.meanResponseTime);
    expect(b.percentiles).toEqual(a.percentiles);
  });
});

describe('trace replay', () => {
  const n = 120_000;
  const warmup = 1000;

  it('replaying the Poisson arrivals of a seed as a trace file reproduces that run exactly', () => {
    const poisson = simulate(params, greedyPolicy(B), { requests: 100_000, warmup, seed: 3 });
    const text = formatTrace(poissonArrivalTimes(params.arrivalRate, n, 3));
    const traced = simulate(params, greedyPolicy(B), { requests: 100_000, warmup, seed: 3, trace: parseTrace(text) });
    expect(traced.arrivals).toBe('trace');
    const { arrivals: _a, ...restTraced } = traced;
    const { arrivals: _b, ...restPoisson } = poisson;
    expect(restTraced).toEqual(restPoisson);
  });

  it('an independent Poisson trace (CSV) reproduces the exact figures within the CI', () => {
    // Built here by inversion from a different generator (Park–Miller, two draws per
    // uniform for ~62 bits), not the simulator's xoshiro128**.
    let x = 20240607;
    const step = (): number => (x = (x * 48271) % 2147483647);
    const uniform = (): number => (step() - 1 + (step() - 0.5) / 2147483646) / 2147483646;
    const rows = ['id,timestamp,model'];
    let t = 100; // traces need not start at 0
    for (let i = 0; i < 250_000; i++) {
      t += -Math.log(1 - uniform()) / params.arrivalRate;
      rows.push(`${i},${t},googlenet`);
    }
    const trace = parseTrace(rows.join('\n'));
    const policy = controlLimitPolicy(11, B);
    const r = simulate(params, policy, { trace, seed: 1 });
    const exact = evaluatePolicy(params, policy);
    expect(r.requests).toBeGreaterThanOrEqual(250_000 - 2 * 2500);
    expect(Math.abs(r.meanResponseTime - exact.meanResponseTime)).toBeLessThanOrEqual(r.confidence.meanResponseTime as number);
    expect(Math.abs(r.meanPower - exact.meanPower)).toBeLessThanOrEqual(r.confidence.meanPower as number);
    expect(Math.abs(r.throughput - params.arrivalRate) / params.arrivalRate).toBeLessThan(0.01);
  });
});

describe('confidence intervals are calibrated', () => {
  it('the exact mean lies in about 95 % of the intervals over 40 seeds', () => {
    const policy = greedyPolicy(B);
    const exact = evaluatePolicy(params, policy).meanResponseTime;
    let inside = 0;
    for (let seed = 100; seed < 140; seed++) {
      const r = simulate(params, policy, { requests: 100_000, seed });
      if (Math.abs(r.meanResponseTime - exact) <= (r.confidence.meanResponseTime as number)) inside++;
    }
    // Binomial(40, 0.95): mean 38, sd 1.4; fewer than 34 (or all 40 by a too-wide interval
    // is allowed) would mean the intervals are too narrow.
    expect(inside).toBeGreaterThanOrEqual(34);
  });
});
