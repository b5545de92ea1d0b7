import { describe, expect, it } from 'vitest';
import { classesOperator } from '../../src/model/classes/bellman.js';
import { compileClasses } from '../../src/model/classes/compile.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { LimitError } from '../../src/model/errors.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { valueIterate } from '../../src/solve/cpu/rvi.js';
import { buildRef, denseRvi } from './reference.js';
import { rejectionOf } from '../helpers/rejection.js';
import { refOf, scenarioOf, type CaseClass } from './support.js';

/**
 * The bug report's pair at a given load ρ = Σ λ_c·l_c(B_c)/B_c: l_1(b) = 1 ms·b + 2 ms (B_1), l_2(b) = 2 ms·b + 2 ms (B_2),
 * rates in the ratio 200 : 120, deterministic service.
 */
function pair(load: number, B1: number, B2: number, S1?: number, S2?: number): CaseClass[] {
  const k = load / ((200 * (0.001 * B1 + 0.002)) / B1 + (120 * (0.002 * B2 + 0.002)) / B2);
  const a: CaseClass = { name: 'a', rate: 200 * k, B: B1, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1, ...(S1 ? { S: S1 } : {}) };
  return [a, { ...a, name: 'b', rate: 120 * k, B: B2, perItem: 0.002, w: 2, ...(S2 ? { S: S2 } : {}) }];
}

const refusal = (p: Promise<unknown>): Promise<LimitError> => rejectionOf(p, LimitError);

describe('two-class RVI at high load on a fixed box (the extrapolated top layers amplify the values)', () => {
  it('the extrapolated model diverges in the independent dense reference too, and the guard stops the solver within a few hundred sweeps', async () => {
    const cls = pair(0.93, 3, 2, 8, 8);
    // The reference (no code shared with src/) does not converge either: the divergence is the model's.
    expect(() => denseRvi(buildRef(refOf(cls), [8, 8], 40, 1e-3), 1e-12, 3000)).toThrow();
    const model = compileClasses(validateClassesScenario(scenarioOf(cls, 40, 1e-3)).params, [8, 8]);
    const out = await valueIterate(classesOperator(model), { tolerance: 1e-10, maxIterations: 0 }, { stopOnDivergence: true });
    expect(out.diverged).toBeDefined();
    expect(out.iterations).toBeLessThan(1000);
    expect(out.diverged!.width).toBeGreaterThan(1e3 * out.diverged!.narrowest);
  });

  it('the lumped truncation at the same box converges, certified, to the dense reference of the lumped model', async () => {
    const cls = pair(0.93, 3, 2, 8, 8);
    const model = compileClasses(validateClassesScenario(scenarioOf(cls, 40, 1e-3)).params, [8, 8]);
    let widest = 0;
    let narrowest = Infinity;
    const out = await valueIterate(
      classesOperator(model, 'lump'),
      { tolerance: 1e-11, maxIterations: 0, progressEvery: 1, onProgress: (p) => {
        narrowest = Math.min(narrowest, p.upper - p.lower);
        widest = Math.max(widest, (p.upper - p.lower) / narrowest);
      } },
      { stopOnDivergence: true },
    );
    expect(out.diverged).toBeUndefined();
    expect(out.stopReason).toBe('converged');
    // Stochastic rows: the Odoni interval never widens (up to rounding).
    expect(widest).toBeLessThan(1 + 1e-9);
    const dense = denseRvi(buildRef(refOf(cls), [8, 8], 40, 1e-3, 'lump'));
    const g = (dense.lower + dense.upper) / 2;
    expect(Math.abs(out.lower - g) / g).toBeLessThan(1e-9);
    expect(Math.abs(out.upper - g) / g).toBeLessThan(1e-9);
    expect(out.upper - out.lower).toBeLessThanOrEqual(1e-6 * out.lower);
  });

  it('a small fixed box at high load is refused by name (classes[0].maxQueue, its top mass and the bound), not garbage bounds', async () => {
    const e = await refusal(solveClassesScenario(scenarioOf(pair(0.93, 4, 3, 12, 12), 40, 1e-3, 1e-9)));
    expect(e.field).toBe('classes[0].maxQueue');
    expect(e.message).toMatch(/S = \(12, 12\) is too small for this load/);
    expect(e.message).toMatch(/diverged/);
    expect(e.message).toMatch(/bound 1e-6/);
  }, 120_000);

  it('the report\'s box (40, 40) at load 0.97 is refused by name', async () => {
    const e = await refusal(solveClassesScenario(scenarioOf(pair(0.97, 4, 3, 40, 40), 40, 1e-3, 1e-9)));
    expect(e.field).toBe('classes[0].maxQueue');
    expect(e.message).toMatch(/S = \(40, 40\) is too small/);
    expect(e.message).toMatch(/raise classes\[0\]\.maxQueue/);
  }, 300_000);

  it('moderate load: the guard stays off and the answer is the extrapolated model\'s (the dense reference, 1e-9)', async () => {
    const cls = pair(0.8, 3, 2, 10, 10);
    const r = await solveClassesScenario(scenarioOf(cls, 40, 1e-3, 1e-11));
    expect(r.solver.method).toBe('value-iteration');
    const dense = denseRvi(buildRef(refOf(cls), [10, 10], 40, 1e-3));
    const g = (dense.lower + dense.upper) / 2;
    expect(Math.abs(r.averageCostLower - g) / g).toBeLessThan(1e-9);
    expect(Math.abs(r.averageCostUpper - g) / g).toBeLessThan(1e-9);
  }, 120_000);
});
