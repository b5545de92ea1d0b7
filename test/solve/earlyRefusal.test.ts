import { describe, expect, it } from 'vitest';
import { buildArrivalTable } from '../../src/model/arrivalTable.js';
import { LimitError } from '../../src/model/errors.js';
import { estimateQueue } from '../../src/model/queueEstimate.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { arrivalsOf } from '../../src/model/arrivalTable.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { evaluationPastBound } from '../../src/policy/extension.js';
import { CORE_BOUNDS, EARLY_REFUSAL_MARGIN, initialMaxQueue } from '../../src/solve/maxQueue.js';
import { solveScenarioDetailed } from '../../src/solve/solveScenario.js';
import type { Solver } from '../../src/solve/types.js';
import { SPEC_FIT, specCapacity, specScenario } from '../helpers/scenarios.js';

/**
 * Issue 18: a scenario the estimate (src/model/queueEstimate.ts) puts far past a bound is refused
 * before any solve, with the same facts a refusal after solving gives; one within the margin is
 * tried, and may solve.
 */

/** The largest ratio need / allowed of the estimate over the core bounds. */
function estimatedExcess(s: Scenario): number {
  const e = estimateQueue(validateScenario(s).params);
  return Math.max(...CORE_BOUNDS.map((b) => b.need(e) / b.allowed));
}

/** A solver that must not be reached. */
const unreachable: Solver = {
  backend: 'cpu',
  solve: () => Promise.reject(new Error('the solver was called')),
};

async function refusal(s: Scenario, opts: Parameters<typeof solveScenarioDetailed>[1]): Promise<LimitError> {
  const err = await solveScenarioDetailed(s, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LimitError);
  return err as LimitError;
}

const gamma = (B: number, load: number): Scenario =>
  specScenario(load * specCapacity(B), 1e-4, { maxBatchSize: B, serviceTime: { linear: { ...SPEC_FIT }, distribution: 'GAMMA', cv: 1.5 } });
/** MMPP arrivals whose mean rate (the chain's stationary mean) is `load` of the capacity B/l(B). */
function mmpp(rates: number[], generator: number[], B: number, distribution: 'DETERMINISTIC' | 'EXPONENTIAL', load: number): Scenario {
  const at = (k: number): Scenario =>
    specScenario(0, 1e-4, { maxBatchSize: B, serviceTime: { linear: { ...SPEC_FIT }, distribution }, arrivalProcess: { mmpp: { rates: rates.map((r) => r * k), generator } } });
  const mean = validateScenario(at(1)).params.arrivalProcess!.meanRate;
  return at((load * specCapacity(B)) / mean);
}

describe('refusal before solving, far past a bound (issue 18)', () => {
  const cases: [string, Scenario][] = [
    ['gamma cv 1.5, B = 64, 95 % load', gamma(64, 0.95)],
    ['exponential, B = 256, 96 % load', specScenario(0.96 * specCapacity(256), 1e-4, { maxBatchSize: 256, serviceTime: { linear: { ...SPEC_FIT }, distribution: 'EXPONENTIAL' } })],
  ];
  for (const [name, s] of cases) {
    it(`${name}: refused without a solve, and the search itself refuses it on the same bound`, async () => {
      const excess = estimatedExcess(s);
      expect(excess).toBeGreaterThan(EARLY_REFUSAL_MARGIN);
      const early = await refusal(s, { percentiles: false, solver: unreachable });
      const field = s.arrivalProcess ? 'arrivalProcess' : 'arrivalRate';
      expect(early.field).toBe(field);
      expect(early.message).toContain('by estimate before solving');
      expect(early.message).toContain(early.bound!);
      expect(early.excess).toBeCloseTo(excess, 12);
      const rate = s.arrivalProcess ? validateScenario(s).params.arrivalProcess!.meanRate : s.arrivalRate!;
      expect(early.admissibleRate).toBeLessThan(rate);
      // The search from its own first S (the early check is skipped when a first S is given) meets a bound too.
      const p = validateScenario(s).params;
      const first = (() => {
        try {
          return initialMaxQueue(p, buildArrivalTable(p), (e) => e);
        } catch (e) {
          return e;
        }
      })();
      if (first instanceof LimitError) {
        expect(['maxQueue', 'maxBandEntries']).toContain(first.bound);
        return;
      }
      const late = await refusal(s, { percentiles: false, initialMaxQueue: first as number });
      expect(late.field).toBe(field);
      expect(late.message).not.toContain('by estimate before solving');
      expect(['maxQueue', 'maxBandEntries']).toContain(late.bound);
    }, 120_000);
  }

  it('MMPP: the estimated S is within 0.8–1.05× of the search’s first S on slow, rare and balanced bursts, and is refused before solving only far past a bound, where the search refuses too', async () => {
    // Slow bursts beside a phase over capacity (500 and 3,000 /s against 2,633 /s at B = 8,
    // switching every few seconds); a rare burst (π = 1e-4) over capacity at B = 32; and four
    // balanced phases at B = 64 (bench/mmppModel.ts FOUR_PHASES).
    const slow = (load: number) => mmpp([500, 3000], [-0.2, 0.2, 0.3, -0.3], 8, 'EXPONENTIAL', load);
    const rare = (load: number) => mmpp([1000, 6000], [-0.001, 0.001, 10, -10], 32, 'DETERMINISTIC', load);
    const four = (load: number) => mmpp([1500, 2500, 4000, 7000], [-4, 4, 0, 0, 6, -9, 3, 0, 0, 8, -10, 2, 0, 0, 20, -20], 64, 'DETERMINISTIC', load);
    for (const s of [slow(0.54), rare(0.4), four(0.8)]) {
      const p = validateScenario(s).params;
      const ratio = estimateQueue(p).S / initialMaxQueue(p, buildArrivalTable(p), (e) => e);
      expect(ratio).toBeGreaterThan(0.8);
      expect(ratio).toBeLessThan(1.05);
    }
    // Where the estimate puts the slow bursts past 1.5× a bound: refused at once, and the search from its own first S meets a bound too.
    const far = slow(0.6);
    expect(estimatedExcess(far)).toBeGreaterThan(EARLY_REFUSAL_MARGIN);
    const early = await refusal(far, { percentiles: false, solver: unreachable });
    expect(early.field).toBe('arrivalProcess');
    expect(early.message).toContain('by estimate before solving');
    const p = validateScenario(far).params;
    const late = await refusal(far, { percentiles: false, initialMaxQueue: initialMaxQueue(p, buildArrivalTable(p), (e) => e) });
    expect(late.message).not.toContain('by estimate before solving');
    expect(['maxQueue', 'maxBandEntries']).toContain(late.bound);
    // Within the margin (0.78× by estimate) the same family solves, certified.
    const near = slow(0.54);
    expect(estimatedExcess(near)).toBeLessThan(1);
    const { result } = await solveScenarioDetailed(near, { percentiles: false });
    expect(result.solver.stopReason).toBe('converged');
    expect(result.averageCostLower).toBeLessThanOrEqual(result.averageCost * (1 + 1e-9));
    expect(result.averageCost).toBeLessThanOrEqual(result.averageCostUpper * (1 + 1e-9));
    expect(result.solver.tailMass).toBeLessThan(1e-9);
  }, 120_000);
});

describe('refusal before solving at an S whose evaluation cannot fit (issue 18)', () => {
  const firstS = (s: Scenario): number => {
    const p = validateScenario(s).params;
    return initialMaxQueue(p, buildArrivalTable(p), (e) => e);
  };

  it('gamma cv 1.5, B = 32, 95 % load: within the estimate margin, but no policy solved at the first S can be evaluated; refused before the solver runs, with the evaluation’s own words', async () => {
    const s = gamma(32, 0.95);
    expect(estimatedExcess(s)).toBeLessThan(EARLY_REFUSAL_MARGIN);
    const early = await refusal(s, { percentiles: false, solver: unreachable });
    expect(early.field).toBe('arrivalRate');
    expect(early.bound).toBe('maxBandEntries');
    // What the exact evaluation of a policy over the first S says (here serving every request at once).
    const p = validateScenario(s).params;
    const S = firstS(s);
    const actions = Int32Array.from({ length: S + 1 }, (_, x) => Math.min(x, p.maxBatchSize));
    let own: unknown;
    try {
      evaluatePolicy(p, { actions, tailBatch: p.maxBatchSize }, { table: buildArrivalTable(p), minLevels: S + 1 });
    } catch (e) {
      own = e;
    }
    expect(own).toBeInstanceOf(LimitError);
    expect(early.message).toContain(`(${(own as LimitError).reason})`);
    expect(early.excess).toBe((own as LimitError).facts.excess);
  }, 120_000);

  it('at 90 % load the same family’s first S is evaluable (the search goes on to solve it), and exponential service with one phase is never judged by the band', () => {
    const s = gamma(32, 0.9);
    const p = validateScenario(s).params;
    const table = buildArrivalTable(p);
    expect(evaluationPastBound(arrivalsOf(p), table, firstS(s), p.maxBatchSize)).toBeUndefined();
    // The same S is past the band's bound for the 95 % scenario's chain.
    const hot = validateScenario(gamma(32, 0.95)).params;
    expect(evaluationPastBound(arrivalsOf(hot), buildArrivalTable(hot), firstS(gamma(32, 0.95)), hot.maxBatchSize)).toBeInstanceOf(LimitError);
    const ex = validateScenario(specScenario(0.97 * specCapacity(64), 1e-4, { maxBatchSize: 64, serviceTime: { linear: { ...SPEC_FIT }, distribution: 'EXPONENTIAL' } })).params;
    expect(evaluationPastBound(arrivalsOf(ex), buildArrivalTable(ex), 200_000, 64)).toBeUndefined();
  }, 120_000);
});
