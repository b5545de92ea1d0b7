import { describe, expect, it } from 'vitest';
import { makeMmpp } from '../../src/model/mmpp/process.js';
import { validateScenario } from '../../src/model/validate.js';
import { dispersion, estimateWork } from '../../src/service/solving/work.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';

describe('estimated work of a solve (solving/work.ts)', () => {
  it('the dispersion of a two-phase MMPP is the closed form 1 + 2·r₁r₂(λ₁ − λ₂)² / ((r₁ + r₂)²·(λ₁r₂ + λ₂r₁))', () => {
    const [l1, l2, r1, r2] = [900, 100, 3, 7]; // r1: rate of leaving phase 1
    const proc = makeMmpp([l1, l2], [-r1, r1, r2, -r2], 'mmpp');
    const closed = 1 + (2 * r1 * r2 * (l1 - l2) ** 2) / ((r1 + r2) ** 2 * (l1 * r2 + l2 * r1));
    expect(dispersion(proc)).toBeCloseTo(closed, 9);
    expect(dispersion(undefined)).toBe(1);
  });

  it('an explicit S gives its states exactly; the automatic S is estimated within a factor of two of the solve’s', async () => {
    expect(estimateWork(validateScenario({ ...specScenario(2000, 1e-4), solver: { maxQueue: 50_000 } })).states).toBe(50_001);
    for (const load of [500, 4000, 4700]) {
      const v = validateScenario(specScenario(load, 1e-4));
      const est = estimateWork(v);
      const solved = (await solveScenario(v)).solver.states;
      expect(est.states / solved, `λ = ${load}`).toBeGreaterThan(0.5);
      expect(est.states / solved, `λ = ${load}`).toBeLessThan(2);
      expect(est.entries).toBe(est.states * est.band);
    }
  });
});
