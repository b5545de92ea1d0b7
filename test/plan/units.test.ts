import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { formatDuration, formatPower, parseDuration, parsePower, parseRate } from '../../src/plan/units.js';
import { powerBound } from '../../src/plan/powerBound.js';
import { validateScenario } from '../../src/model/validate.js';
import { specScenario } from '../helpers/scenarios.js';

describe('units', () => {
  it('parses durations in s, ms, us/µs and ns', () => {
    expect(parseDuration('10ms', 'f')).toBeCloseTo(0.01, 15);
    expect(parseDuration(' 250 us ', 'f')).toBeCloseTo(250e-6, 18);
    expect(parseDuration('250µs', 'f')).toBeCloseTo(250e-6, 18);
    expect(parseDuration('0.01s', 'f')).toBe(0.01);
    expect(parseDuration('5e-3s', 'f')).toBe(0.005);
    expect(parseDuration('1500ns', 'f')).toBeCloseTo(1.5e-6, 18);
  });

  it('parses power in W, kW and mW, any case, and rates with or without /s', () => {
    expect(parsePower('120W', 'f')).toBe(120);
    expect(parsePower('1.2kW', 'f')).toBe(1200);
    expect(parsePower('1.2 KW', 'f')).toBe(1200);
    expect(parsePower('500mW', 'f')).toBe(0.5);
    expect(parseRate('20000', 'f')).toBe(20000);
    expect(parseRate('2e4/s', 'f')).toBe(20000);
  });

  it('refuses bare numbers, unknown units and non-positive values, naming the field', () => {
    const cases: [() => number, RegExp][] = [
      [() => parseDuration('10', '--latency-target'), /^--latency-target: must be a duration with a unit/],
      [() => parseDuration('10 min', '--latency-target'), /unknown unit "min"/],
      [() => parseDuration('10MS', '--latency-target'), /unknown unit "MS"/],
      [() => parseDuration('0ms', '--latency-target'), /must be a positive duration/],
      [() => parseDuration('-3ms', '--latency-target'), /must be a positive duration/],
      [() => parsePower('120', '--power-budget'), /^--power-budget: must be a power with a unit/],
      [() => parsePower('120 J', '--power-budget'), /unknown unit "J"/],
      [() => parseRate('fast', '--total-rate'), /^--total-rate: must be a positive rate/],
      [() => parseRate('0', '--total-rate'), /must be a positive rate/],
    ];
    for (const [f, msg] of cases) {
      expect(f).toThrow(ScenarioError);
      expect(f).toThrow(msg);
    }
  });

  it('formats durations and power for people', () => {
    expect(formatDuration(0.0075299)).toBe('7.5299 ms');
    expect(formatDuration(850e-6)).toBe('850.00 µs');
    expect(formatDuration(1.25)).toBe('1.2500 s');
    expect(formatPower(133.73126)).toBe('133.7313 W');
    expect(formatPower(12345)).toBe('12.3450 kW');
  });
});

describe('the least-power bound (a two-row LP)', () => {
  it('is attained by a single stable batch size at light load, and straddles u = 1 at heavy load', () => {
    // λ = 1500: extra energy per request e(b) = (P(b) − P0)·l(b)/b is least at b = 13, which is stable.
    const light = powerBound(validateScenario(specScenario(1500, 1e-4)).params);
    const e = (b: number): number => ((40 + 3 * b) * (0.0001438 * b + 0.0018874)) / b;
    expect(light).toMatchObject({ attained: true, batchSizes: [13] });
    expect(light.infimum).toBeCloseTo(40 + 1500 * e(13), 10);
    // λ = 4000: b = 13 cannot keep up; the optimum mixes 18 (u < 1) and 17 (u > 1) to run the server flat out.
    const heavy = powerBound(validateScenario(specScenario(4000, 1e-3)).params);
    expect(heavy).toMatchObject({ attained: false, batchSizes: [18, 17] });
    const c = (b: number): number => (4000 * (0.0001438 * b + 0.0018874)) / b;
    const x = (c(17) - 1) / (c(17) - c(18));
    expect(heavy.infimum).toBeCloseTo(40 + 4000 * (x * e(18) + (1 - x) * e(17)), 10);
  });
});
