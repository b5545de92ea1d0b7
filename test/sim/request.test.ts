import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { validateScenario } from '../../src/model/validate.js';
import { controlLimitPolicy, type Policy } from '../../src/policy/policy.js';
import { simulateRequest } from '../../src/sim/request.js';
import { simulate } from '../../src/sim/simulate.js';
import { TINY, TINY_TRACE } from './tiny.js';

describe('simulateRequest (the Simulate RPC as a function of JSON)', () => {
  it('simulates what simulate() would, from plain JSON (64-bit integers may be strings)', async () => {
    const r = await simulateRequest({ scenario: TINY, policy: 'static:2', requests: '20000', seed: 4 });
    const direct = simulate(validateScenario(TINY).params, { actions: new Int32Array(2), tailBatch: 2 }, { requests: 20_000, seed: 4 });
    expect(r).toEqual(direct);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });

  it('resolves optimal through the injected solver and nothing else', async () => {
    const asked: number[] = [];
    const solver = async (s: ReturnType<typeof validateScenario>): Promise<Policy> => {
      asked.push(s.params.maxBatchSize);
      return controlLimitPolicy(2, s.params.maxBatchSize);
    };
    const r = await simulateRequest({ scenario: TINY, requests: 10_000 }, { optimalPolicy: solver });
    expect(asked).toEqual([4]);
    expect(r.policy).toBe('optimal');
    await expect(simulateRequest({ scenario: TINY, policy: 'optimal' })).rejects.toThrow(/optimal is not available/);
  });

  it('replays arrivalTimestamps', async () => {
    const r = await simulateRequest({ scenario: TINY, policy: 'greedy', arrivalTimestamps: Array.from(TINY_TRACE), warmupRequests: 0 });
    expect(r.arrivals).toBe('trace');
    expect(r.meanResponseTime).toBeCloseTo(18.3 / 6, 12);
  });

  it('names the field of every refusal', async () => {
    const cases: [unknown, RegExp][] = [
      [[], /^request: must be a JSON object/],
      [{ policy: 'greedy' }, /^scenario: is required/],
      [{ scenario: { ...TINY, arrivalRate: -1 } }, /^scenario\.arrivalRate: must be > 0/],
      [{ scenario: TINY, colour: 1 }, /^colour: is not a known field/],
      [{ scenario: TINY, policy: 7 }, /^policy: must be a string/],
      [{ scenario: TINY, requests: 1.5 }, /^requests: must be a non-negative integer/],
      [{ scenario: TINY, requests: 1e12 }, /^requests: must be ≤ 200000000/],
      [{ scenario: TINY, policy: 'static:1' }, /^policy: static:1 is unstable/],
      [{ scenario: TINY, arrivalTimestamps: [1, 0.5] }, /^arrivalTimestamps\[1\]: is earlier/],
      [{ scenario: TINY, arrivalTimestamps: ['x'] }, /^arrivalTimestamps\[0\]: must be a finite number/],
      [{ scenario: TINY, confidenceBatches: 1 }, /^confidenceBatches: must be ≥ 2/],
    ];
    for (const [req, message] of cases) {
      const err = await simulateRequest(req, { optimalPolicy: async () => controlLimitPolicy(1, 4) }).catch((e: unknown) => e);
      expect(err instanceof Error ? err.message : err, JSON.stringify(req)).toMatch(message);
      expect(err instanceof ScenarioError || (err as Error).name === 'LimitError', JSON.stringify(req)).toBe(true);
    }
  });

  it('stops at the signal', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(simulateRequest({ scenario: TINY, policy: 'greedy', requests: 50_000_000 }, { signal: ac.signal })).rejects.toThrow(/abort/);
  });
});
