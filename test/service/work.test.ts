import { describe, expect, it } from 'vitest';
import { buildArrivalTable } from '../../src/model/arrivalTable.js';
import { modelCharge } from '../../src/model/chainEntries.js';
import { compileModel, modelBand } from '../../src/model/compile.js';
import { validateScenario } from '../../src/model/validate.js';
import { estimateWork } from '../../src/service/solving/work.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';

describe('estimated work of a solve (solving/work.ts)', () => {
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

  it('one phase with exponential service is charged as compile.ts charges it (the geometric reduction), not as the band', () => {
    const rate = 0.97 * (64 / (0.0001438 * 64 + 0.0018874));
    const v = validateScenario({ ...specScenario(rate, 1e-4, { maxBatchSize: 64, serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'EXPONENTIAL' } }), solver: { maxQueue: 20_000 } });
    const est = estimateWork(v);
    const model = compileModel(v.params, 20_000, buildArrivalTable(v.params));
    expect(est.entries).toBe(modelCharge(model, modelBand(model)).entries);
    expect(est.entries).toBeLessThan(est.states * est.band / 5);
    // Deterministic service keeps the band.
    const det = estimateWork(validateScenario({ ...specScenario(rate, 1e-4, { maxBatchSize: 64 }), solver: { maxQueue: 20_000 } }));
    expect(det.entries).toBe(det.states * det.band);
  });
});
