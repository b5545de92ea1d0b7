import { expect } from 'vitest';
import { LimitError, ScenarioError } from '../../src/model/errors.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { fuzzCases, type FuzzShape } from './fuzzCases.js';

/** Solves slower than this are printed, to keep an eye on the cost of the suite. */
const SLOW_MS = 5000;

export interface FuzzTally {
  valid: number;
  refused: number;
  limited: number;
}

/**
 * Solves `count` random scenarios, 45 % of them broken in one field. Every refusal must be a
 * ScenarioError naming the broken field; every valid one must come back certified:
 * averageCostLower ≤ averageCost ≤ averageCostUpper (relative 1e-6, for the truncation) and
 * tail mass below 1e-9. A valid scenario may be refused only by a documented bound
 * (LimitError on arrivalRate: too close to capacity for the state bound; on objective: too close
 * to degenerate for f64 evaluation).
 */
export async function fuzz(seed: number, count: number, shape: FuzzShape): Promise<FuzzTally> {
  const tally: FuzzTally = { valid: 0, refused: 0, limited: 0 };
  for (const { input, expectedField, where } of fuzzCases(seed, count, shape)) {
    const breakIt = expectedField !== '';
    const started = performance.now();
    try {
      // The percentiles have their own fuzz (test/latency/fuzz.test.ts): here the solve alone.
      const res = await solveScenario(input, { percentiles: false });
      const took = performance.now() - started;
      // Slow solves are reported (not failed): speed is measured in bench/, not here.
      if (took > SLOW_MS) console.warn(`fuzz: slow solve ${(took / 1000).toFixed(1)} s, S = ${res.solver.maxQueue}, ${res.solver.method}; ${where}`);
      expect(breakIt, `should have been refused at ${expectedField}; ${where}`).toBe(false);
      tally.valid++;
      expect(Number.isFinite(res.averageCost), where).toBe(true);
      expect(res.averageCostLower, where).toBeLessThanOrEqual(res.averageCost * (1 + 1e-6));
      expect(res.averageCostUpper, where).toBeGreaterThanOrEqual(res.averageCost * (1 - 1e-6));
      expect(res.solver.tailMass, where).toBeLessThan(1e-9);
    } catch (e) {
      if (e instanceof LimitError && !breakIt) {
        expect(['arrivalRate', 'objective'], where).toContain(e.field);
        tally.limited++;
        continue;
      }
      if (!(e instanceof ScenarioError)) throw new Error(`${String(e)} — ${where}`);
      expect(breakIt, `refused (${e.message}); ${where}`).toBe(true);
      expect(e.field.startsWith(expectedField) || expectedField.startsWith(e.field), `${e.field} vs ${expectedField}; ${where}`).toBe(true);
      tally.refused++;
    }
  }
  return tally;
}
