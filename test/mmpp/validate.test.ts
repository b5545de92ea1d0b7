import { describe, expect, it } from 'vitest';
import { LimitError, ScenarioError } from '../../src/model/errors.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { specScenario } from '../helpers/scenarios.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { sampleMmpp } from './sampler.js';

/** The spec fit at B = 32 (capacity ≈ 4,923 /s) with bursty arrivals. */
function withProcess(arrivalProcess: unknown, arrivalRate = 0): Scenario {
  return { ...specScenario(arrivalRate, 1e-3), arrivalProcess: arrivalProcess as Scenario['arrivalProcess'] };
}

function refusal(input: unknown): ScenarioError {
  try {
    validateScenario(input);
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('the scenario was accepted');
}

const MMPP = { mmpp: { rates: [1000, 4000], generator: [-5, 5, 20, -20] } };

describe('arrivalProcess: accepted forms', () => {
  it('an MMPP, flat or as rows, gives λ̄ = π·λ as arrivalRate', () => {
    const flat = validateScenario(withProcess(MMPP)).params;
    const rows = validateScenario(withProcess({ mmpp: { rates: [1000, 4000], generator: [[-5, 5], [20, -20]] } })).params;
    // π = (20, 5)/25, λ̄ = 0.8·1000 + 0.2·4000 = 1600.
    expect(flat.arrivalRate).toBeCloseTo(1600, 9);
    expect(rows.arrivalRate).toBe(flat.arrivalRate);
    expect(Array.from(flat.arrivalProcess!.stationary)).toEqual([0.8, 0.2].map((v) => expect.closeTo(v, 15)));
  });

  it('arrivalRate may be omitted, 0, or equal to λ̄', () => {
    const { arrivalRate: _omit, ...rest } = withProcess(MMPP);
    expect(validateScenario(rest).params.arrivalRate).toBeCloseTo(1600, 9);
    expect(validateScenario(withProcess(MMPP, 1600)).params.arrivalRate).toBeCloseTo(1600, 9);
  });

  it('a burst profile becomes phases [base, burst] with the given mean, peak and durations', () => {
    const p = validateScenario(withProcess({ burst: { meanRate: 2000, peakToMean: 2.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } })).params;
    const proc = p.arrivalProcess!;
    expect(proc.rates[1]).toBe(5000);
    // Burst share 0.05/0.25 = 0.2, so the base carries (2000 − 0.2·5000)/0.8 = 1250.
    expect(proc.rates[0]).toBeCloseTo(1250, 9);
    expect(proc.generator[1]).toBeCloseTo(1 / 0.2, 12);
    expect(proc.generator[2]).toBeCloseTo(1 / 0.05, 12);
    expect(p.arrivalRate).toBeCloseTo(2000, 9);
  });

  it('without arrivalProcess nothing changes', () => {
    const p = validateScenario(specScenario(4000, 1e-3)).params;
    expect(p.arrivalProcess).toBeUndefined();
    expect('arrivalProcess' in p).toBe(false);
  });
});

describe('arrivalProcess: every refusal names the field', () => {
  const cases: Array<[string, unknown, number, string, RegExp]> = [
    ['a row that does not sum to 0', { mmpp: { rates: [1000, 4000], generator: [-5, 4, 20, -20] } }, 0, 'arrivalProcess.mmpp.generator', /row 0 sums to -1/],
    ['a negative off-diagonal', { mmpp: { rates: [1000, 4000], generator: [[5, -5], [20, -20]] } }, 0, 'arrivalProcess.mmpp.generator[0][0]', /diagonal entry and must be ≤ 0/],
    ['a negative rate between phases', { mmpp: { rates: [1, 2, 3], generator: [-1, 2, -1, 1, -1, 0, 1, 1, -2] } }, 0, 'arrivalProcess.mmpp.generator[2]', /off-diagonal rate \(phase 0 → 2\)/],
    ['a reducible generator', { mmpp: { rates: [1000, 4000, 10], generator: [-5, 5, 0, 20, -20, 0, 1, 1, -2] } }, 0, 'arrivalProcess.mmpp.generator', /reducible: phase 2/],
    ['a generator of the wrong size', { mmpp: { rates: [1000, 4000], generator: [0, 0, 0] } }, 0, 'arrivalProcess.mmpp.generator', /must be 2×2/],
    ['nine phases', { mmpp: { rates: new Array(9).fill(100), generator: new Array(81).fill(0) } }, 0, 'arrivalProcess.mmpp.rates', /1 to 8 phases/],
    ['a negative phase rate', { mmpp: { rates: [-1, 4000], generator: [-5, 5, 20, -20] } }, 0, 'arrivalProcess.mmpp.rates[0]', /≥ 0/],
    ['all phases silent', { mmpp: { rates: [0, 0], generator: [-5, 5, 20, -20] } }, 0, 'arrivalProcess.mmpp.rates', /at least one phase/],
    ['λ̄ above capacity', { mmpp: { rates: [4000, 9000], generator: [-5, 5, 5, -5] } }, 0, 'arrivalProcess', /mean rate λ̄ = 6500 .*not below the capacity/],
    ['arrivalRate different from λ̄', MMPP, 1500, 'arrivalRate', /is 1500 \/s but arrivalProcess has mean rate/],
    ['two kinds at once', { ...MMPP, burst: { meanRate: 1 } }, 0, 'arrivalProcess', /only one of mmpp, burst/],
    ['an unknown kind', { poisson: {} }, 0, 'arrivalProcess.poisson', /not a known field/],
    ['a burst peak the gaps cannot pay for', { burst: { meanRate: 1000, peakToMean: 6, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } }, 0, 'arrivalProcess.burst.peakToMean', /≤ 1 \+ meanGapSeconds\/meanBurstSeconds = 5/],
    ['a burst profile without its length', { burst: { meanRate: 1000, peakToMean: 2, meanGapSeconds: 0.2 } }, 0, 'arrivalProcess.burst.meanBurstSeconds', /required/],
    ['a peak below the mean', { burst: { meanRate: 1000, peakToMean: 0.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } }, 0, 'arrivalProcess.burst.peakToMean', /≥ 1/],
    ['a short trace', { trace: { timestamps: [0, 1, 2] } }, 0, 'arrivalProcess.trace.timestamps', /1000 to 10000000/],
    ['bursts of 1e-300 s', { burst: { meanRate: 1000, peakToMean: 1.2, meanBurstSeconds: 1e-300, meanGapSeconds: 1e-300 } }, 0, 'arrivalProcess.burst.meanBurstSeconds', /must be ≥ 1e-9 s .* over the bound 1000000000 \/s/],
  ];
  for (const [name, proc, rate, field, reason] of cases) {
    it(name, () => {
      const e = refusal(withProcess(proc, rate));
      expect(e.field).toBe(field);
      expect(e.reason).toMatch(reason);
    });
  }

  it('a trace in epoch milliseconds is refused with the fix, where epoch seconds are taken', () => {
    const start = Date.UTC(2026, 0, 15); // ms
    const ms = Array.from({ length: 2000 }, (_, i) => start + i * 0.25); // 4000 /s, in milliseconds
    const e = refusal(withProcess({ trace: { timestamps: ms } }));
    expect(e.field).toBe('arrivalProcess.trace.timestamps');
    expect(e.reason).toMatch(/as milliseconds 2026: timestamps are seconds, so divide them by 1000/);
    const seconds = ms.map((t) => t / 1000);
    expect(validateScenario(withProcess({ trace: { timestamps: seconds } })).params.arrivalProcess!.meanRate).toBeGreaterThan(3000);
  });

  it('a service time in milliseconds written as seconds gets a hint at the capacity error', () => {
    const e = refusal({ ...withProcess(MMPP), arrivalProcess: undefined, arrivalRate: 1000, serviceTime: { linear: { perItem: 0.5, base: 2 }, distribution: 'DETERMINISTIC' } });
    expect(e.field).toBe('arrivalRate');
    expect(e.reason).toMatch(/serviceTime is in seconds: l\(1\) = 2\.5 s; were these milliseconds, write 0\.0025/);
  });

  it('phases that switch too fast for the batches are refused as a bound on the arrival process, before any work', async () => {
    const fast = { ...withProcess({ mmpp: { rates: [100, 900], generator: [-1e9, 1e9, 1e9, -1e9] } }), serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'DETERMINISTIC' } };
    const e = await solveScenario(fast).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LimitError);
    expect((e as LimitError).field).toBe('arrivalProcess');
    expect((e as LimitError).reason).toMatch(/uniformization steps .* over the bound 100000/);
  });

  it('an unsorted trace names the first timestamp out of order', () => {
    const ts = Array.from({ length: 2000 }, (_, i) => i * 0.001);
    ts[1234] = 0.5;
    const e = refusal(withProcess({ trace: { timestamps: ts } }));
    expect(e.field).toBe('arrivalProcess.trace.timestamps[1234]');
    expect(e.reason).toMatch(/before the previous timestamp/);
  });
});

describe('arrivalProcess: a trace is fitted during validation', () => {
  it('gives a two-phase process whose mean rate is the trace rate, with the fit report', () => {
    const ts = Array.from(sampleMmpp([500, 2500], [[-5, 5], [20, -20]], 60, 11));
    const p = validateScenario(withProcess({ trace: { timestamps: ts } })).params;
    const proc = p.arrivalProcess!;
    expect(proc.source).toBe('trace');
    expect(proc.phases).toBe(2);
    expect(proc.fit!.meanRateTrace).toBeCloseTo((ts.length - 1) / (ts[ts.length - 1] - ts[0]), 9);
    expect(Math.abs(p.arrivalRate - proc.fit!.meanRateTrace) / p.arrivalRate).toBeLessThan(1e-9);
  });
});
