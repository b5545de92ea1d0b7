import { describe, expect, it } from 'vitest';
import { buildArrivalTable } from '../../src/model/arrivalTable.js';
import { bandEntries, GEOMETRIC_REFERENCE_CAP, modelCharge } from '../../src/model/chainEntries.js';
import { compileModel, modelBand } from '../../src/model/compile.js';
import { LimitError } from '../../src/model/errors.js';
import { LIMITS } from '../../src/model/limits.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluateOnModel } from '../../src/policy/modelChain.js';
import { solveScenarioDetailed } from '../../src/solve/solveScenario.js';
import { expandedChainCost } from '../helpers/serviceChainEval.js';
import { SPEC_FIT, specCapacity, specScenario } from '../helpers/scenarios.js';

/**
 * Issue 18: exponential service near capacity (bench/hardRegimes.cases.ts), charged as the
 * geometric reduction holds it (src/model/chainEntries.ts), not as the dense band.
 */
const B = 64;
const TOLERANCE = 1e-7;
const l = (b: number) => SPEC_FIT.perItem * b + SPEC_FIT.base;
const exponential = (load: number): Scenario =>
  specScenario(load * specCapacity(B), 1e-4, { maxBatchSize: B, serviceTime: { linear: { ...SPEC_FIT }, distribution: 'EXPONENTIAL' }, solver: { tolerance: TOLERANCE } });

/** The independent evaluation (test/helpers/serviceChainEval.ts) of a solver table, min(s, B) past it, cut at N. */
function independentCost(load: number, table: Int32Array, N: number): number {
  const S = table.length - 1;
  const t = { lambda: load * specCapacity(B), l, P: (b: number) => 80 + 3 * b, P0: 40, wLat: 1, wPow: 1e-4 };
  return expandedChainCost(t, (s) => (s <= S ? table[s] : Math.min(s, B)), N);
}

/** One solve per load, shared by the tests that read it. */
const solutions = new Map<number, ReturnType<typeof solveScenarioDetailed>>();
function solved(load: number): ReturnType<typeof solveScenarioDetailed> {
  if (!solutions.has(load)) solutions.set(load, solveScenarioDetailed(exponential(load), { percentiles: false }));
  return solutions.get(load)!;
}

describe('exponential service, B = 64, near capacity (issue 18)', () => {
  for (const load of [0.95, 0.97]) {
    it(`${load * 100} % load: solved and certified, g equal to an independent evaluation of the returned policy`, async () => {
      const { result, warmStart } = await solved(load);
      const { averageCostLower: lower, averageCostUpper: upper, averageCost: g } = result;
      const S = result.solver.maxQueue;
      expect(result.solver.stopReason).toBe('converged');
      expect(lower).toBeLessThanOrEqual(upper);
      expect((upper - lower) / Math.abs(lower)).toBeLessThanOrEqual(TOLERANCE);
      expect(result.solver.tailMass).toBeLessThan(1e-9);
      // The dense band of this model is past the bound: it is solved because the charge is the reduction's.
      const v = validateScenario(exponential(load));
      const model = compileModel(v.params, S, buildArrivalTable(v.params));
      const { lo, hi } = modelBand(model);
      expect(modelCharge(model, { lo, hi }).counted).toBe('geometric');
      if (load === 0.97) expect(bandEntries(S + 1, lo, hi)).toBeGreaterThan(LIMITS.maxBandEntries);
      // The returned policy's exact cost, by another chain and another reduction, cut far past S.
      const reference = independentCost(load, warmStart.policy, 2 * S);
      expect(Math.abs(g - reference) / reference).toBeLessThan(1e-11);
      expect(lower).toBeLessThanOrEqual(reference * (1 + 1e-9));
      expect(reference).toBeLessThanOrEqual(upper * (1 + 1e-9));
      if (load === 0.95) {
        // The cut does not matter there.
        expect(Math.abs(independentCost(load, warmStart.policy, 2 * S + 5000) - reference) / reference).toBeLessThan(1e-13);
      }
    });
  }

  it('a reference hint above the cap (the mode at the top, as at 99.5 %) evaluates as from the cap, without a censored chain of S states', async () => {
    const { warmStart } = await solved(0.97);
    const v = validateScenario(exponential(0.97));
    const model = compileModel(v.params, warmStart.policy.length - 1, buildArrivalTable(v.params));
    const fromTop = evaluateOnModel(model, warmStart.policy, model.S);
    const fromCap = evaluateOnModel(model, warmStart.policy, GEOMETRIC_REFERENCE_CAP);
    expect(model.S).toBeGreaterThan(10 * GEOMETRIC_REFERENCE_CAP);
    expect(fromTop.gain).toBe(fromCap.gain);
    expect(Math.abs(fromTop.gain - evaluateOnModel(model, warmStart.policy, 0).gain) / fromTop.gain).toBeLessThan(1e-12);
  });

  it('99.5 % load: solved and certified, or refused with a LimitError naming the bound and the admissible load', async () => {
    const s = exponential(0.995);
    try {
      const { result } = await solveScenarioDetailed(s, { percentiles: false });
      expect(result.averageCostLower).toBeLessThanOrEqual(result.averageCostUpper);
      expect(result.averageCostLower).toBeLessThanOrEqual(result.averageCost * (1 + 1e-9));
      expect(result.averageCost).toBeLessThanOrEqual(result.averageCostUpper * (1 + 1e-9));
      expect(result.solver.tailMass).toBeLessThan(1e-9);
    } catch (e) {
      expect(e).toBeInstanceOf(LimitError);
      const err = e as LimitError;
      expect(err.field).toBe('arrivalRate');
      expect(['maxQueue', 'maxBandEntries']).toContain(err.bound);
      expect(err.message).toContain(err.bound!);
      expect(err.excess).toBeGreaterThan(1);
      expect(err.admissibleRate).toBeLessThan(s.arrivalRate!);
    }
  });
});

describe('what really holds its band stays refused, with the bound and an estimate', () => {
  it('gamma cv 1.5, B = 64, 90 % load: refused on the band bound, excess and admissible load given', async () => {
    const rate = 0.9 * specCapacity(B);
    const s = specScenario(rate, 1e-4, { maxBatchSize: B, serviceTime: { linear: { ...SPEC_FIT }, distribution: 'GAMMA', cv: 1.5 } });
    const err = await solveScenarioDetailed(s, { percentiles: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LimitError);
    const e = err as LimitError;
    expect(e.field).toBe('arrivalRate');
    expect(e.bound).toBe('maxBandEntries');
    expect(e.message).toContain('maxBandEntries');
    expect(e.excess).toBeGreaterThan(1);
    // Measured: 70 % of capacity solves, 75 % is refused; the estimate lies between (73.0 %).
    expect(e.admissibleRate! / specCapacity(B)).toBeGreaterThan(0.6);
    expect(e.admissibleRate! / specCapacity(B)).toBeLessThan(0.8);
    expect(e.message).toContain(`${e.admissibleRate!.toPrecision(3)} /s`);
    // The model's charge is its band.
    const v = validateScenario(s);
    const model = compileModel(v.params, 100, buildArrivalTable(v.params));
    expect(modelCharge(model, modelBand(model)).counted).toBe('band');
  });

  it('MMPP arrivals with exponential service are charged as their band: a deep S is refused at compile', () => {
    const s = specScenario(0, 1e-4, {
      maxBatchSize: B,
      serviceTime: { linear: { ...SPEC_FIT }, distribution: 'EXPONENTIAL' },
      arrivalProcess: { mmpp: { rates: [0.5 * specCapacity(B), 1.2 * specCapacity(B)], generator: [-2, 2, 4, -4] } },
    });
    const v = validateScenario(s);
    const table = buildArrivalTable(v.params);
    const S = 20_000;
    const err = (() => {
      try {
        compileModel(v.params, S, table);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(LimitError);
    expect((err as LimitError).bound).toBe('maxBandEntries');
    // The charge is the band of the flat (queue, phase) chain, its upward reach the longest count law's.
    let upReach = 1;
    for (let b = 1; b <= B; b++) upReach = Math.max(upReach, table.offset[b] + table.length[b] - 1 - b);
    const { lo, hi } = modelBand({ B, M: 2, upReach });
    const charge = modelCharge({ S, M: 2, B, cascade: table.cascade }, { lo, hi });
    expect(charge).toEqual({ entries: bandEntries((S + 1) * 2, lo, hi), counted: 'band' });
    expect((err as LimitError).excess).toBeCloseTo(charge.entries / LIMITS.maxBandEntries, 9);
  });
});
