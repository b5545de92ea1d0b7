import { describe, expect, it } from 'vitest';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { SPEC_CASES, specCaseName, specCaseScenario } from '../helpers/specTable.js';

describe('docs/model.md §6 reference table (CPU, automatic S)', () => {
  for (const c of SPEC_CASES) {
    it(specCaseName(c), async () => {
      const r = await solveScenario(specCaseScenario(c));
      // The reference g* is given to 12 significant digits: 1e-9 relative is well inside it.
      expect(Math.abs(r.averageCost - c.g) / c.g).toBeLessThan(1e-9);
      expect(r.policy.controlLimit).toBe(c.controlLimit);
      expect(r.meanResponseTime * 1e3).toBeCloseTo(c.meanResponseTimeMs, 4);
      expect(Math.abs(r.meanPower - c.meanPower)).toBeLessThan(1e-3);
      // The certified interval brackets the exact cost of the returned (optimal) policy.
      expect(r.averageCostLower).toBeLessThanOrEqual(r.averageCost * (1 + 1e-9));
      expect(r.averageCostUpper).toBeGreaterThanOrEqual(r.averageCost * (1 - 1e-9));
      expect(r.averageCostUpper - r.averageCostLower).toBeLessThanOrEqual(1e-9 * r.averageCostLower);
      expect(r.solver.tailMass).toBeLessThan(1e-9);
      expect(r.solver.stopReason).toBe('converged');
    });
  }
});
