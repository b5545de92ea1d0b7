import { describe, expect, it } from 'vitest';
import { deterministicLaw } from '../../src/latency/mixture.js';
import { compileModel } from '../../src/model/compile.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { policyOf } from '../../src/solve/result.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * Pruning by reach (docs/model.md §9.1) against the mixture with nothing pruned: on two §6 rows
 * whose policies deviate from min(s, B), the pruned CDF stays within its stated error of the full
 * one at every point of a fine grid, with far fewer terms kept.
 */
describe('the mixture pruned by reach', () => {
  for (const [rate, wPow] of [
    [1500, 1e-4],
    [4000, 1e-3],
  ] as const) {
    it(`λ = ${rate}, w_pow = ${wPow}: within the stated error of the unpruned law`, async () => {
      const sc = validateScenario(specScenario(rate, wPow));
      const r = await solveScenario(sc, { percentiles: false });
      const policy = policyOf(r.policy, sc.params.maxBatchSize);
      const model = compileModel(sc.params, r.solver.maxQueue);
      const ev = evaluatePolicy(sc.params, policy, { minLevels: r.solver.maxQueue + 1 });
      const pruned = deterministicLaw(model, policy, ev);
      const full = deterministicLaw(model, policy, ev, 0);
      let worst = 0;
      for (let i = 1; i <= 400; i++) {
        const t = (i / 400) * 0.03;
        worst = Math.max(worst, Math.abs(pruned.cdf(t) - full.cdf(t)));
      }
      expect(worst).toBeLessThanOrEqual(pruned.cdfError);
      expect(Math.abs(pruned.mean - full.mean)).toBeLessThanOrEqual(1e-12 * full.mean);
      expect(pruned.work).toBeLessThanOrEqual(full.work);
    });
  }
});
