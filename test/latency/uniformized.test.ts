import { beforeAll, describe, expect, it } from 'vitest';
import { compileModel } from '../../src/model/compile.js';
import type { Scenario, ValidatedScenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { responseTimeDistribution, responseTimeLaw, type LatencyPercentiles, type ResponseTimeDistribution } from '../../src/latency/distribution.js';
import { uniformEntry } from '../../src/latency/uniformEntry.js';
import { latencyFigures } from '../../src/latency/summary.js';
import { percentilesOf } from '../../src/latency/percentiles.js';
import { evaluatePolicy, type DetailedEvaluation } from '../../src/policy/evaluate.js';
import { broadcastPolicy, controlLimitPolicy, type Policy } from '../../src/policy/policy.js';
import { solveScenarioDetailed } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { SPEC_CASES, specCaseScenario } from '../helpers/specTable.js';
import { shareBelow, simulateResponseTimes } from '../helpers/queueSim.js';

interface Case {
  readonly sc: ValidatedScenario;
  readonly policy: Policy;
  readonly ev: DetailedEvaluation;
  readonly d: ResponseTimeDistribution;
}

function run(sc: ValidatedScenario, policy: Policy, S = 8): Case {
  const ev = evaluatePolicy(sc.params, policy);
  const model = compileModel(sc.params, S);
  const d = responseTimeDistribution(model, policy, ev);
  expect(d.method).toBe('uniformization');
  return { sc, policy, ev, d };
}

async function solved(s: Scenario): Promise<Case> {
  const sc = validateScenario(s);
  const sol = await solveScenarioDetailed(sc);
  const M = sol.warmStart.phases;
  const policy: Policy = { actions: sol.warmStart.policy, tailBatch: sc.params.maxBatchSize, ...(M > 1 ? { phases: M } : {}) };
  return run(sc, policy, sol.result.solver.maxQueue);
}

const PROBS = [0.5, 0.9, 0.95, 0.99, 0.999];
const pct = (d: { readonly percentiles: LatencyPercentiles } | LatencyPercentiles) => {
  const p = 'percentiles' in d ? d.percentiles : d;
  return [p.p50, p.p90, p.p95, p.p99, p.p999];
};

/** The entry law's kept and dropped masses account for all of it (Y-normalisation and the batch kernels' totals). */
function expectEntryWhole(c: Case): void {
  const model = compileModel(c.sc.params, 8);
  const e = uniformEntry(model, broadcastPolicy(c.policy, model.M), c.ev.stationary, c.ev.levels);
  expect(Math.abs(e.kept + e.dropped - 1)).toBeLessThan(1e-12);
  expect(e.dropped).toBeLessThan(1e-11);
}

function expectSimulationAgrees(c: Case, seed: number): void {
  const samples = simulateResponseTimes(c.sc.params, c.policy, 200_000, seed);
  const [p50, p90, , p99] = pct(c.d);
  for (const [t, p] of [
    [p50, 0.5],
    [p90, 0.9],
    [p99, 0.99],
  ] as const) {
    const e = shareBelow(samples, t);
    expect(e.se).toBeGreaterThan(0);
    expect(Math.abs(e.share - p)).toBeLessThan(4 * e.se);
  }
}

describe('uniformized response-time distribution (exponential service)', () => {
  it('M/M/1 (B = 1): R ~ Exp(μ − λ)', () => {
    const lambda = 700;
    const D = 1e-3;
    const sc = validateScenario({
      arrivalRate: lambda,
      maxBatchSize: 1,
      serviceTime: { linear: { perItem: D, base: 0 }, distribution: 'EXPONENTIAL' },
      power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
      objective: { latencyWeight: 1, powerWeight: 0 },
    });
    const { d } = run(sc, { actions: Int32Array.of(0), tailBatch: 1 });
    const rate = 1 / D - lambda;
    for (let i = 0; i < d.grid.length; i++) expect(Math.abs(d.cdf[i] - (1 - Math.exp(-rate * d.grid[i])))).toBeLessThan(1e-10);
    pct(d).forEach((t, i) => {
      const exact = -Math.log(1 - PROBS[i]) / rate;
      expect(Math.abs(t - exact) / exact).toBeLessThan(1e-8);
    });
    expect(Math.abs(d.mean - 1 / rate)).toBeLessThan(1e-10);
    expect(d.accuracy.cdf).toBeLessThan(1e-10);
  });

  describe('the optimal policy of the §6 exponential row (λ = 2000, w_pow = 1e-4)', () => {
    let c: Case;
    beforeAll(async () => {
      const row = SPEC_CASES.find((x) => x.distribution === 'EXPONENTIAL')!;
      c = await solved(specCaseScenario(row));
    });
    it('has the exact evaluation’s mean, and a whole entry law', () => {
      expect(Math.abs(c.d.mean - c.ev.meanResponseTime) / c.ev.meanResponseTime).toBeLessThan(1e-9);
      expectEntryWhole(c);
      expect(c.d.accuracy.percentileRelative).toBeLessThan(1e-8);
    });
    it('is within the results’ cost guard: a solve shows its percentiles, the same to the stated accuracy', () => {
      const f = latencyFigures(compileModel(c.sc.params, 8), c.policy, c.ev);
      if (!('latency' in f)) throw new Error(f.latencyUnavailable);
      expect(f.latency.method).toBe('uniformization');
      pct(c.d).forEach((t, i) => expect(Math.abs(t - pct(f.latency)[i]) / t).toBeLessThanOrEqual(f.latency.accuracy.percentileRelative + c.d.accuracy.percentileRelative));
    });
  });

  describe('a control limit with partial batches (Poisson, λ = 2000, serve min(s, 32) from s = 5)', () => {
    let c: Case;
    beforeAll(() => {
      const s = specScenario(2000, 1e-4);
      s.serviceTime = { ...s.serviceTime, distribution: 'EXPONENTIAL' };
      c = run(validateScenario(s), controlLimitPolicy(5, 32));
    });
    it('has the exact evaluation’s mean', () => {
      expect(Math.abs(c.d.mean - c.ev.meanResponseTime) / c.ev.meanResponseTime).toBeLessThan(1e-9);
      expectEntryWhole(c);
    });
    it('matches a discrete-event simulation at p50, p90, p99 (4 batch-means standard errors)', () => {
      expectSimulationAgrees(c, 12345);
    });
    it('stepping only the states that hold ≥ 1e-20 stays within its stated bound of stepping every state that holds mass', () => {
      const law = responseTimeLaw(compileModel(c.sc.params, 8), c.policy, c.ev, { dropBelow: 0 });
      const every = percentilesOf(law, 1e-9);
      expect(law.work).toBeGreaterThanOrEqual(c.d.work);
      expect(c.d.accuracy.cdf).toBeLessThan(1e-11);
      for (let i = 0; i < c.d.grid.length; i++) expect(Math.abs(c.d.cdf[i] - law.cdf(c.d.grid[i]))).toBeLessThanOrEqual(c.d.accuracy.cdf);
      pct(c.d).forEach((t, i) => expect(Math.abs(t - pct(every)[i]) / t).toBeLessThanOrEqual(c.d.accuracy.percentileRelative + every.relative));
    });
  });

  describe('bursty MMPP traffic (two phases, bursts at 1.5× the mean), exponential service, per-phase optimal policy', () => {
    let c: Case;
    beforeAll(async () => {
      const s: Scenario = {
        // B = 8 at ~20 % of capacity (bursts at 30 %): queues stay short, so the chain stays small.
        // (Bursts above capacity, as in test/mmpp/bursty.test.ts, reach queues of ~1,800 and 8.5M states.)
        ...specScenario(0, 1e-4, { maxBatchSize: 8 }),
        arrivalProcess: { burst: { meanRate: 500, peakToMean: 1.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } },
      };
      s.serviceTime = { ...s.serviceTime, distribution: 'EXPONENTIAL' };
      c = await solved(s);
      expect(c.policy.phases).toBe(2);
    }, 120_000);
    it('has the exact evaluation’s mean, and a whole entry law', () => {
      expect(Math.abs(c.d.mean - c.ev.meanResponseTime) / c.ev.meanResponseTime).toBeLessThan(1e-9);
      expectEntryWhole(c);
    });
    it('matches a discrete-event simulation at p50, p90, p99 (4 batch-means standard errors)', () => {
      expectSimulationAgrees(c, 777);
    });
  });
});
