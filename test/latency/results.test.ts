import { describe, expect, it } from 'vitest';
import { evaluateScenarioPolicy } from '../../src/solve/evaluateScenario.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import type { Scenario } from '../../src/model/scenario.js';
import { cheapScenario, expectPercentilesOf } from '../helpers/latency.js';

const BURSTY: Scenario = { ...cheapScenario(), arrivalRate: undefined, arrivalProcess: { mmpp: { rates: [100, 500], generator: [-5, 5, 5, -5] } } } as unknown as Scenario;

describe('library results carry the response-time percentiles', () => {
  it('solveScenario: equal to responseTimeDistribution on the returned policy, p50 ≤ … ≤ p99.9', async () => {
    const s = cheapScenario();
    const r = await solveScenario(s);
    expectPercentilesOf(s, r);
    expect(r.latency!.method).toBe('mixture');
  });

  it('evaluateScenarioPolicy: the same for a given policy (B = 4, static:2)', () => {
    const s = cheapScenario(300, 4);
    const r = evaluateScenarioPolicy(s, 'static:2');
    expectPercentilesOf(s, r, 'static:2');
  });

  it('percentiles: false leaves them out, with no reason', async () => {
    const s = cheapScenario();
    const r = await solveScenario(s, { percentiles: false });
    expect(r.latency).toBeUndefined();
    expect(r.latencyUnavailable).toBeUndefined();
    const e = evaluateScenarioPolicy(s, 'greedy', { percentiles: false });
    expect('latency' in e || 'latencyUnavailable' in e).toBe(false);
  });

  it('MMPP arrivals with deterministic service: no percentiles, and the result says why instead of crashing', () => {
    const r = evaluateScenarioPolicy(BURSTY, 'greedy');
    expect(r.latency).toBeUndefined();
    expect(r.latencyUnavailable).toMatch(/MMPP arrivals is implemented for exponential service only/);
    expect(r.meanResponseTime).toBeGreaterThan(0);
  });
});
