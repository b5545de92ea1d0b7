import { describe, expect, it } from 'vitest';
import { compileModel } from '../../src/model/compile.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { policyIteration } from '../../src/solve/cpu/pi.js';
import { relativeValueIteration } from '../../src/solve/cpu/rvi.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { SPEC_CASES } from '../helpers/specTable.js';
import { specScenario } from '../helpers/scenarios.js';

/** docs/model.md §4 worked case: λ = 4000, B = 32, w_pow = 1e-3; true answer control limit 11, g ≈ 0.1421514259. */
const WORKED = SPEC_CASES.find((c) => c.arrivalRate === 4000 && c.powerWeight === 1e-3)!;

function firstServe(actions: Int32Array | number[]): number {
  return Array.from(actions).findIndex((a) => a > 0);
}

describe('the tail correction of docs/model.md §4 (worked case)', () => {
  const { params } = validateScenario(specScenario(4000, 1e-3));

  it('gives the right control limit from S = 30', async () => {
    const out = await relativeValueIteration(compileModel(params, 30), { tolerance: 1e-9, maxIterations: 0 });
    expect(firstServe(out.policy)).toBe(WORKED.controlLimit);
  });

  it('gives the RVI estimate of g within 1e-6 from S = 50', async () => {
    for (const S of [50, 80]) {
      const out = await relativeValueIteration(compileModel(params, S), { tolerance: 1e-9, maxIterations: 0 });
      expect(Math.abs(out.lower - WORKED.g) / WORKED.g).toBeLessThan(1e-6);
      expect(Math.abs(out.upper - WORKED.g) / WORKED.g).toBeLessThan(1e-6);
    }
  });

  it('gives a policy whose exact cost is the optimum (1e-12) from S = 100', async () => {
    const reference = await solveScenario(specScenario(4000, 1e-3));
    for (const S of [100, 150]) {
      const out = await policyIteration(compileModel(params, S), { tolerance: 1e-9, maxIterations: 0 });
      const exact = evaluatePolicy(params, { actions: out.policy, tailBatch: 32 }).averageCost;
      expect(Math.abs(exact - reference.averageCost) / reference.averageCost).toBeLessThan(1e-12);
      expect(Math.abs(exact - WORKED.g) / WORKED.g).toBeLessThan(1e-9);
    }
  });

  it('policy iteration and RVI agree on the truncated model (same certificate)', async () => {
    const model = compileModel(params, 60);
    const pi = await policyIteration(model, { tolerance: 1e-10, maxIterations: 0 });
    const vi = await relativeValueIteration(model, { tolerance: 1e-10, maxIterations: 0 });
    expect(Array.from(pi.policy)).toEqual(Array.from(vi.policy));
    expect(pi.lower).toBeLessThanOrEqual(vi.upper * (1 + 1e-12));
    expect(vi.lower).toBeLessThanOrEqual(pi.upper * (1 + 1e-12));
    expect(vi.iterations).toBeGreaterThan(100 * pi.iterations);
  });
});

describe('automatic choice of S (docs/model.md §4 check)', () => {
  it('grows out of a degenerate start, warm-started, to the true answer', async () => {
    // From S = 12 the solver waits up to the top: the top states carry mass and S must grow.
    const r = await solveScenario(specScenario(4000, 1e-3), { initialMaxQueue: 12 });
    expect(r.solver.maxQueueTried.length).toBeGreaterThan(1);
    expect(r.solver.maxQueueTried[0]).toBe(12);
    expect(r.solver.tailMass).toBeLessThan(1e-9);
    expect(r.policy.controlLimit).toBe(WORKED.controlLimit);
    expect(Math.abs(r.averageCost - WORKED.g) / WORKED.g).toBeLessThan(1e-9);
  });

  it('reports the tail mass of a too-small explicit S instead of growing it', async () => {
    const r = await solveScenario({ ...specScenario(4000, 1e-3), solver: { maxQueue: 12 } });
    expect(r.solver.maxQueueTried).toEqual([12]);
    expect(r.solver.tailMass).toBeGreaterThan(1e-9);
    // Not "converged": the interval is the truncated model's, and here the policy's exact cost lies outside it.
    expect(r.solver.stopReason).toBe('tail-mass');
    expect(r.averageCost > r.averageCostUpper || r.averageCost < r.averageCostLower).toBe(true);
  });

  it('an explicit S large enough for the tail check converges as the automatic one does', async () => {
    const auto = await solveScenario(specScenario(4000, 1e-3));
    const r = await solveScenario({ ...specScenario(4000, 1e-3), solver: { maxQueue: auto.solver.maxQueue } });
    expect(r.solver.stopReason).toBe('converged');
    expect(r.solver.tailMass).toBeLessThan(1e-9);
    expect(r.averageCost).toBeGreaterThanOrEqual(r.averageCostLower * (1 - 1e-12));
    expect(r.averageCost).toBeLessThanOrEqual(r.averageCostUpper * (1 + 1e-12));
  });

  it('the degenerate small-S policy waits to the top', async () => {
    const out = await relativeValueIteration(compileModel(validateScenario(specScenario(4000, 1e-3)).params, 12), {
      tolerance: 1e-9,
      maxIterations: 0,
    });
    expect(firstServe(out.policy)).toBeGreaterThan(WORKED.controlLimit);
  });
});
