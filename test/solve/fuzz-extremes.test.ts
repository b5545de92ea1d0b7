import { expect, it } from 'vitest';
import { fuzz } from '../helpers/fuzz.js';
import { FUZZ_PARTS } from '../helpers/fuzzCases.js';

// The last 100 of the 10,000: B up to the maximum and loads up to 99.5 % of capacity.
it('fuzz extremes: 100 scenarios, B up to the maximum, load up to 99.5 %', async () => {
  const t = await fuzz(FUZZ_PARTS.extremes.seed, FUZZ_PARTS.extremes.count, FUZZ_PARTS.extremes.shape);
  expect(t.valid + t.refused + t.limited).toBe(100);
  expect(t.valid).toBeGreaterThan(30);
  expect(t.limited).toBeLessThan(10);
}, 900_000);
