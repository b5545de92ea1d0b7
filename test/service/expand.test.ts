import { describe, expect, it } from 'vitest';
import { LimitError, ScenarioError } from '../../src/model/errors.js';
import { validateScenario } from '../../src/model/validate.js';
import { expandBatch } from '../../src/service/batch/expand.js';
import { policyFromProto, scenarioFromProto } from '../../src/service/convert/scenario.js';
import { specScenario } from '../helpers/scenarios.js';

describe('expandBatch', () => {
  const base = specScenario(1000, 1e-4);

  it('a grid is the cartesian product, arrival rate slowest, power weight fastest', () => {
    const e = expandBatch({ grid: { base, arrivalRate: [1000, 2000], maxBatchSize: [16, 32], powerWeight: [0, 1e-3, 1e-4] } }, 100);
    expect(e).toHaveLength(12);
    expect(e.map((x) => x.index)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(e[0].parameters).toEqual({ arrivalRate: 1000, maxBatchSize: 16, latencyWeight: 1, powerWeight: 0 });
    expect(e[1].parameters.powerWeight).toBe(1e-3);
    expect(e[3].parameters).toEqual({ arrivalRate: 1000, maxBatchSize: 32, latencyWeight: 1, powerWeight: 0 });
    expect(e[11].parameters).toEqual({ arrivalRate: 2000, maxBatchSize: 32, latencyWeight: 1, powerWeight: 1e-4 });
    // Each one is a complete scenario the validator accepts, with the grid's values in it.
    const v = validateScenario(e[11].scenario);
    expect([v.params.arrivalRate, v.params.maxBatchSize, v.params.powerWeight]).toEqual([2000, 32, 1e-4]);
  });

  it('empty lists keep the base value', () => {
    const e = expandBatch({ grid: { base, arrivalRate: [], latencyWeight: [2] } }, 100);
    expect(e.map((x) => x.parameters)).toEqual([{ arrivalRate: 1000, maxBatchSize: 32, latencyWeight: 2, powerWeight: 1e-4 }]);
  });

  it('refuses more scenarios than the bound before building them, naming it', () => {
    const many = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(() => expandBatch({ grid: { base, arrivalRate: many, powerWeight: many } }, 10_000)).toThrow(LimitError);
    expect(() => expandBatch({ grid: { base, arrivalRate: many, powerWeight: many } }, 10_000)).toThrow(/1000000 scenarios.*maxScenariosPerBatch limit 10000/);
    expect(() => expandBatch({ list: { scenarios: [base, base, base] } }, 2)).toThrow(/list\.scenarios: gives 3/);
  });

  it('a request with neither list nor grid, or both, is refused', () => {
    expect(() => expandBatch({}, 10)).toThrow(ScenarioError);
    expect(() => expandBatch({ list: { scenarios: [] }, grid: { base } }, 10)).toThrow(/not both/);
    expect(expandBatch({ list: { scenarios: [] } }, 10)).toEqual([]);
  });
});

describe('scenarioFromProto', () => {
  it('fills proto3 zeros inside present messages, keeps absent required fields absent', () => {
    // proto3 does not send `base: 0`; a decoded linear fit arrives without it.
    const decoded = { maxBatchSize: 4, serviceTime: { linear: { perItem: 0.001 } }, power: { busyLinear: { base: 50 } }, objective: { latencyWeight: 1 } };
    const json = scenarioFromProto(decoded) as Record<string, unknown>;
    expect(json.serviceTime).toEqual({ linear: { perItem: 0.001, base: 0 } });
    expect(json.power).toEqual({ busyLinear: { perItem: 0, base: 50 } });
    expect(json.arrivalRate).toBeUndefined();
    expect(() => validateScenario(json)).toThrow(/arrivalRate: is required/);
    expect(validateScenario({ ...json, arrivalRate: 100 }).params.meanService[4]).toBeCloseTo(0.004, 15);
  });
});

describe('policyFromProto', () => {
  it('reads a spec or a table and names the bad field', () => {
    expect(Array.from(policyFromProto({ spec: 'control-limit:3' }, 8).actions)).toEqual([0, 0, 0]);
    expect(Array.from(policyFromProto({ table: { actions: [0, 0, 2] } }, 8).actions)).toEqual([0, 0, 2]);
    expect(() => policyFromProto({ table: { actions: [0, 3] } }, 8)).toThrow(/policy\.table\.actions\[1\]/);
    expect(() => policyFromProto({ spec: 'static:99' }, 8)).toThrow(/policy\.spec/);
    expect(() => policyFromProto(undefined, 8)).toThrow(/policy: is required/);
  });
});
