import { expect, it } from 'vitest';
import { fuzz } from '../helpers/fuzz.js';
import { FUZZ_PARTS } from '../helpers/fuzzCases.js';

// Part 1 of the 10,000-scenario fuzz (split so that vitest spreads it over the cores).
it('fuzz part 1: 3,300 random scenarios, B ≤ 32, load up to 85 %', async () => {
  const t = await fuzz(FUZZ_PARTS.part1.seed, FUZZ_PARTS.part1.count, FUZZ_PARTS.part1.shape);
  expect(t.valid + t.refused + t.limited).toBe(3300);
  expect(t.valid).toBeGreaterThan(1500);
  expect(t.refused).toBeGreaterThan(1200);
  // A valid scenario may meet the documented state bound (refused on arrivalRate, checked in fuzz()).
  expect(t.limited).toBeLessThan(10);
}, 900_000);
