import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { scenarioFromProto } from '../../src/service/convert/scenario.js';
import { specScenario } from '../helpers/scenarios.js';

/** Bad restrictions are refused naming the field and the bound (docs/model.md §11.1). */
function refusal(restrictions: unknown, base: Scenario = specScenario(4000, 1e-3)): ScenarioError {
  try {
    validateScenario({ ...base, restrictions });
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('expected the scenario to be refused');
}

describe('restrictions: validation', () => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['an empty set', { allowedBatchSizes: [] }, 'restrictions.allowedBatchSizes', /non-empty array/],
    ['not an array', { allowedBatchSizes: 8 }, 'restrictions.allowedBatchSizes', /array/],
    ['a size above B', { allowedBatchSizes: [8, 32, 64] }, 'restrictions.allowedBatchSizes[2]', /≤ maxBatchSize = 32 \(got 64\)/],
    ['a size below 1', { allowedBatchSizes: [0, 32] }, 'restrictions.allowedBatchSizes[0]', /≥ 1 \(got 0\)/],
    ['a negative size', { allowedBatchSizes: [-4, 32] }, 'restrictions.allowedBatchSizes[0]', /≥ 1/],
    ['a non-integer', { allowedBatchSizes: [2.5, 32] }, 'restrictions.allowedBatchSizes[0]', /integer \(got 2\.5\)/],
    ['a string', { allowedBatchSizes: ['8', 32] }, 'restrictions.allowedBatchSizes[0]', /number/],
    ['a duplicate', { allowedBatchSizes: [8, 16, 8, 32] }, 'restrictions.allowedBatchSizes[2]', /repeats the size 8/],
    ['a largest size other than B', { allowedBatchSizes: [8, 16] }, 'restrictions.allowedBatchSizes', /must include maxBatchSize = 32 as its largest size \(got largest 16\)/],
    ['ONLY_ALLOWED without sizes', { batchSizeRule: 'ONLY_ALLOWED' }, 'restrictions.batchSizeRule', /needs allowedBatchSizes/],
    ['an unknown rule', { allowedBatchSizes: [32], batchSizeRule: 'ROUND' }, 'restrictions.batchSizeRule', /PAD_TO_ALLOWED or ONLY_ALLOWED/],
    ['a non-integer cap', { maxOngoingRequests: 4.5 }, 'restrictions.maxOngoingRequests', /integer/],
    ['a negative cap', { maxOngoingRequests: -1 }, 'restrictions.maxOngoingRequests', /≥ 0/],
    ['an unknown field', { allowedSizes: [32] }, 'restrictions.allowedSizes', /not a known field/],
    // At λ = 4000 a batch of at most 5 clears 5 / l(5) = 1918 /s (Ray Serve's default cap).
    ['a cap the load outruns', { maxOngoingRequests: 5 }, 'restrictions.maxOngoingRequests', /caps every batch at 5: the capacity 5 \/ l\(5\) = .* = 1918\.\d+ \/s is not above the arrival rate 4000 \/s/],
    ['an only-allowed set the cap leaves empty', { allowedBatchSizes: [8, 32], batchSizeRule: 'ONLY_ALLOWED', maxOngoingRequests: 4 }, 'restrictions.maxOngoingRequests', /below the smallest allowed batch size 8/],
  ];
  for (const [name, value, field, message] of cases) {
    it(`${name} → ${field}`, () => {
      const e = refusal(value);
      expect(e.field).toBe(field);
      expect(e.message).toMatch(message);
      expect(e.message.startsWith(`${field}: `)).toBe(true);
    });
  }

  it('reads proto names and enum spellings as the service sends them', () => {
    const p = validateScenario({ ...specScenario(4000, 1e-3), restrictions: { allowed_batch_sizes: [32, 1, 2, 4, 8, 16], batch_size_rule: 'only_allowed' } }).params;
    expect(p.restriction?.allowedBatchSizes).toEqual([1, 2, 4, 8, 16, 32]);
    expect(p.restriction?.batchSizeRule).toBe('ONLY_ALLOWED');
    // A decoded proto Scenario: unset fields absent, an empty repeated field means unset.
    const fromProto = scenarioFromProto({ ...specScenario(4000, 1e-3), restrictions: { allowedBatchSizes: [], maxOngoingRequests: 40 } });
    expect(validateScenario(fromProto).params.restriction?.maxOngoingRequests).toBe(40);
    expect(validateScenario(fromProto).params.restriction?.allowedBatchSizes).toEqual([]);
  });

  it('padding charges each batch as its padded size; a cap lowers the largest batch', () => {
    const base = validateScenario(specScenario(4000, 1e-3)).params;
    const p = validateScenario({ ...specScenario(4000, 1e-3), restrictions: { allowedBatchSizes: [1, 2, 4, 8, 16, 32] } }).params;
    expect(p.maxBatchSize).toBe(32);
    expect(p.meanService[3]).toBe(base.meanService[4]);
    expect(p.busyPower[17]).toBe(base.busyPower[32]);
    expect(p.secondMoment[9]).toBe(base.secondMoment[16]);
    expect(p.restriction?.unrestricted.meanService[3]).toBe(base.meanService[3]);
    const capped = validateScenario({ ...specScenario(4000, 1e-3), restrictions: { maxOngoingRequests: 24 } }).params;
    expect(capped.maxBatchSize).toBe(24);
    expect(capped.restriction?.unrestricted.maxBatchSize).toBe(32);
    // An empty restrictions object restricts nothing.
    expect(validateScenario({ ...specScenario(4000, 1e-3), restrictions: {} }).params.restriction).toBeUndefined();
  });
});

describe('evaluating a policy under ONLY_ALLOWED', () => {
  it('refuses a policy that serves a size the restriction forbids, in its table or its tail rule', async () => {
    const { evaluateScenarioPolicy } = await import('../../src/solve/evaluateScenario.js');
    const s = { ...specScenario(4000, 1e-3), restrictions: { allowedBatchSizes: [1, 2, 4, 8, 16, 32], batchSizeRule: 'ONLY_ALLOWED' as const } };
    for (const spec of ['table:0,1,2,3', 'control-limit:10', 'greedy']) {
      expect(() => evaluateScenarioPolicy(s, spec)).toThrow(/restrictions\.allowedBatchSizes \(ONLY_ALLOWED/);
    }
    // Allowed sizes only (the table reaches 32, past it serve 32): evaluated, and so under padding anything is.
    const ok = `table:0,1,2,2,4,4,4,4,8,8,8,8,8,8,8,8,${Array.from({ length: 16 }, () => 16).join(',')}`;
    expect(evaluateScenarioPolicy(s, ok).averageCost).toBeGreaterThan(0);
    expect(evaluateScenarioPolicy({ ...s, restrictions: { allowedBatchSizes: [1, 2, 4, 8, 16, 32] } }, 'greedy').averageCost).toBeGreaterThan(0);
  });
});
