import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';

const cls = (over: Record<string, unknown> = {}) => ({ arrivalRate: 100, maxBatchSize: 4, serviceTime: { linear: { perItem: 0.001, base: 0.002 } }, power: { busyLinear: { perItem: 3, base: 80 } }, latencyWeight: 1, ...over });
const scenario = (classes: unknown, more: Record<string, unknown> = {}) => ({ classes, power: { idleWatts: 40 }, objective: { powerWeight: 1e-3 }, ...more });

function refusal(raw: unknown): ScenarioError {
  try {
    validateClassesScenario(raw);
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('accepted');
}

describe('multi-class validation', () => {
  it('accepts two classes and reads their laws', () => {
    const v = validateClassesScenario(scenario([cls({ name: 'x' }), cls({ serviceTime: { linear: { perItem: 0.001, base: 0.002 }, distribution: 'GAMMA', cv: 0.5 } })]));
    expect(v.params.classes.map((c) => c.name)).toEqual(['x', 'class2']);
    expect(v.params.classes[1].secondMoment[2]).toBeCloseTo(0.004 * 0.004 * 1.25, 15);
  });
  it('refuses an empty list and more than three classes', () => {
    expect(refusal(scenario([])).field).toBe('classes');
    expect(refusal(scenario([cls(), cls(), cls(), cls()])).reason).toMatch(/at most 3/);
  });
  it('names the field and bound of a bad class', () => {
    expect(refusal(scenario([cls(), cls({ maxBatchSize: 0 })])).field).toBe('classes[1].maxBatchSize');
    expect(refusal(scenario([cls({ maxBatchSize: 2000 })])).reason).toMatch(/≤ 1024/);
    expect(refusal(scenario([cls({ arrivalRate: -1 })])).field).toBe('classes[0].arrivalRate');
    expect(refusal(scenario([cls({ latencyWeight: 0 })])).field).toBe('classes[0].latencyWeight');
    expect(refusal(scenario([cls({ serviceTime: { linear: { perItem: 0.001, base: 0.002 }, cv: 0.3 } })])).field).toBe('classes[0].serviceTime.cv');
    expect(refusal(scenario([cls({ power: { busyTable: { values: [1, 2] } } })])).field).toBe('classes[0].power.busyTable.values');
    expect(refusal(scenario([cls({ maxQueue: 1 })])).field).toBe('classes[0].maxQueue');
    expect(refusal(scenario([cls({ name: 'a' }), cls({ name: 'a' })])).field).toBe('classes[1].name');
    expect(refusal(scenario([cls({ color: 'red' })])).field).toBe('classes[0].color');
  });
  it('refuses an unstable load with every class’s share in the message', () => {
    // Shares: 1000·0.006/4 = 1.5 alone; together with the second over 1.
    const e = refusal(scenario([cls({ name: 'a', arrivalRate: 500 }), cls({ name: 'b', arrivalRate: 300 })]));
    expect(e.field).toBe('classes');
    expect(e.reason).toMatch(/Σ_c λ_c·l_c\(B_c\)\/B_c = 1\.2 is not below 1/);
    expect(e.reason).toMatch(/a: 500 \/s · 0\.006 s \/ 4 = 0\.75/);
  });
  it('refuses solver.maxQueue (per class instead)', () => {
    expect(refusal(scenario([cls()], { solver: { maxQueue: 10 } })).field).toBe('solver.maxQueue');
  });
});
