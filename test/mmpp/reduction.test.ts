import { describe, expect, it } from 'vitest';
import { arrivalPmf } from '../../src/model/arrivals.js';
import { serviceLaws } from '../../src/model/arrivalTable.js';
import { countingMatrices } from '../../src/model/mmpp/counting.js';
import { poissonAsMmpp } from '../../src/model/mmpp/process.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluateScenarioPolicy } from '../../src/solve/evaluateScenario.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import type { SolveResult } from '../../src/solve/result.js';
import { SPEC_CASES, specCaseName, specCaseScenario } from '../helpers/specTable.js';

/** The same scenario with its Poisson arrivals given as a one-phase MMPP (docs/model.md §7, M = 1). */
function asOnePhase(s: Scenario): Scenario {
  return { ...s, arrivalRate: 0, arrivalProcess: { mmpp: { rates: [s.arrivalRate], generator: [0] } } };
}

/** Two phases with the same rate λ switching at rates a, b: the phase is invisible, the traffic Poisson(λ). */
function asTwoEqualPhases(s: Scenario, a: number, b: number): Scenario {
  return { ...s, arrivalRate: 0, arrivalProcess: { mmpp: { rates: [s.arrivalRate, s.arrivalRate], generator: [-a, a, b, -b] } } };
}

/** What a result says about the queue, without the arrival facts a given process adds. */
function figures(r: SolveResult) {
  const { arrivalProcess: _a, phaseFigures: _f, policy, solver, ...rest } = r;
  const { phases: _p, ...summary } = policy;
  const { seconds: _s, ...facts } = solver;
  return { ...rest, policy: summary, solver: facts };
}

const relative = (a: number, b: number): number => Math.abs(a - b) / Math.abs(b);

describe('M = 1: a one-phase MMPP scenario is the Poisson scenario, bit for bit', () => {
  for (const c of SPEC_CASES.filter((_, i) => i === 1 || i === 3 || i === 4 || i === 5)) {
    it(`solve: ${specCaseName(c)}`, async () => {
      const a = await solveScenario(specCaseScenario(c));
      const b = await solveScenario(asOnePhase(specCaseScenario(c)));
      expect(figures(b)).toEqual(figures(a));
      expect(relative(b.averageCost, c.g)).toBeLessThan(1e-9);
      expect(b.policy.phases![0].actions).toEqual(b.policy.actions);
    });
  }

  it('evaluate: every figure of a control-limit policy is the same', () => {
    const s = specCaseScenario(SPEC_CASES[3]);
    const a = evaluateScenarioPolicy(s, 'control-limit:6');
    const { arrivalProcess: _a, phaseFigures: _f, policy: { phases: _p, ...pol }, ...b } = evaluateScenarioPolicy(asOnePhase(s), 'control-limit:6');
    expect({ ...b, policy: pol }).toEqual(a);
  });

  it('the counting matrices of one phase (uniformization) are the closed-form Poisson pmf', () => {
    const c = SPEC_CASES.find((x) => x.distribution === 'GAMMA' && x.cv === 0.7)!;
    const { params } = validateScenario(specCaseScenario(c));
    const counting = countingMatrices(poissonAsMmpp(params.arrivalRate), serviceLaws(params));
    for (let b = 1; b <= params.maxBatchSize; b++) {
      const blk = counting.blocks[b - 1];
      const pmf = arrivalPmf(params.distribution, params.arrivalRate, params.meanService[b], params.secondMoment[b], params.cv);
      // The counting cut may fold a boundary atom (mass < 1e-15) one step inwards; nothing else moves.
      const lo = Math.min(blk.offset, pmf.offset);
      const hi = Math.max(blk.offset + blk.length, pmf.offset + pmf.probs.length);
      for (let k = lo; k < hi; k++) {
        const x = k - blk.offset >= 0 && k - blk.offset < blk.length ? blk.probs[k - blk.offset] : 0;
        const y = k - pmf.offset >= 0 && k - pmf.offset < pmf.probs.length ? pmf.probs[k - pmf.offset] : 0;
        expect(Math.abs(x - y)).toBeLessThan(2e-15);
      }
    }
  });
});

describe('M = 2 with equal phase rates: the several-phase code path reproduces the Poisson optimum', () => {
  for (const c of SPEC_CASES.filter((_, i) => i === 1 || i === 4)) {
    it(specCaseName(c), async () => {
      const a = await solveScenario(specCaseScenario(c));
      const b = await solveScenario(asTwoEqualPhases(specCaseScenario(c), 3, 7));
      expect(relative(b.averageCost, a.averageCost)).toBeLessThan(1e-9);
      expect(relative(b.averageCost, c.g)).toBeLessThan(1e-9);
      expect(b.averageCostLower).toBeLessThanOrEqual(c.g * (1 + 1e-9));
      expect(b.averageCostUpper).toBeGreaterThanOrEqual(c.g * (1 - 1e-9));
      for (const ph of b.policy.phases!) expect(ph.controlLimit).toBe(c.controlLimit);
      expect(relative(b.meanResponseTime, a.meanResponseTime)).toBeLessThan(1e-9);
    });
  }
});
