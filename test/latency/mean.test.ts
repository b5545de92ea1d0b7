import { describe, expect, it } from 'vitest';
import { compileModel } from '../../src/model/compile.js';
import { validateScenario } from '../../src/model/validate.js';
import { responseTimeMean } from '../../src/latency/distribution.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { solveScenarioDetailed } from '../../src/solve/solveScenario.js';
import { SPEC_CASES, specCaseName, specCaseScenario } from '../helpers/specTable.js';

describe('the distribution’s mean equals the exact E[R] of docs/model.md §5', () => {
  for (const c of SPEC_CASES) {
    it(specCaseName(c), async () => {
      const sc = validateScenario(specCaseScenario(c));
      const sol = await solveScenarioDetailed(sc);
      const policy = { actions: sol.warmStart.policy, tailBatch: sc.params.maxBatchSize };
      const ev = evaluatePolicy(sc.params, policy);
      const mean = responseTimeMean(compileModel(sc.params, sol.result.solver.maxQueue), policy, ev);
      expect(Math.abs(mean - ev.meanResponseTime) / ev.meanResponseTime).toBeLessThan(1e-9);
      expect(Math.abs(mean - sol.result.meanResponseTime) / ev.meanResponseTime).toBeLessThan(1e-9);
    });
  }
});
