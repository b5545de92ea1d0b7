import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { LIMITS } from '../../src/model/limits.js';
import { validateScenario } from '../../src/model/validate.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { edit } from '../helpers/edit.js';
import { specScenario } from '../helpers/scenarios.js';

/** The spec scenario with an edit at a dotted path (undefined deletes). */
function edited(path: string, value: unknown) {
  return edit(specScenario(4000, 1e-4), path, value);
}

function refusal(input: unknown): ScenarioError {
  try {
    validateScenario(input);
  } catch (e) {
    if (e instanceof ScenarioError) return e;
    throw e;
  }
  throw new Error('expected the scenario to be refused');
}

describe('scenario validation names the field and the bound', () => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['arrivalRate', -5, 'arrivalRate', /> 0/],
    ['arrivalRate', 0, 'arrivalRate', /> 0/],
    ['arrivalRate', Number.NaN, 'arrivalRate', /NaN/],
    ['arrivalRate', Number.POSITIVE_INFINITY, 'arrivalRate', /finite/],
    ['arrivalRate', undefined, 'arrivalRate', /required/],
    ['arrivalRate', '4000', 'arrivalRate', /number/],
    ['arrivalRate', 7000, 'arrivalRate', /not below the capacity .* = 4931\.\d+ \/s/],
    ['arrivalRate', 1e-20, 'arrivalRate', /offers a load λ·l\(1\) = 2\.03e-23, below the bound 1e-9: a certified solve needs at least 4\.92e-7 \/s/],
    ['arrivalRate', 5e-324, 'arrivalRate', /below the bound 1e-9/],
    ['maxBatchSize', 0, 'maxBatchSize', /≥ 1/],
    ['maxBatchSize', 2.5, 'maxBatchSize', /integer/],
    ['maxBatchSize', LIMITS.maxBatchSize + 1, 'maxBatchSize', new RegExp(`≤ ${LIMITS.maxBatchSize}`)],
    ['maxBatchSize', undefined, 'maxBatchSize', /required/],
    ['serviceTime', undefined, 'serviceTime', /required/],
    ['serviceTime.linear', undefined, 'serviceTime.linear', /required.*table/],
    ['serviceTime.linear.perItem', -1e-4, 'serviceTime.linear.perItem', /≥ 0/],
    ['serviceTime.linear.base', Number.NaN, 'serviceTime.linear.base', /NaN/],
    ['serviceTime.table', { values: [0.001, 0.002] }, 'serviceTime.table', /not both/],
    ['serviceTime.distribution', 'NORMAL', 'serviceTime.distribution', /DETERMINISTIC, EXPONENTIAL, GAMMA/],
    ['serviceTime.distribution', 'GAMMA', 'serviceTime.cv', /required/],
    ['serviceTime.cv', 0.5, 'serviceTime.cv', /only to distribution GAMMA/],
    ['power', undefined, 'power', /required/],
    ['power.idleWatts', -1, 'power.idleWatts', /≥ 0/],
    ['power.busyLinear.base', -80, 'power.busyLinear.base', /≥ 0/],
    ['power.busyLinear', undefined, 'power.busyLinear', /required.*busyTable/],
    ['objective', undefined, 'objective', /required/],
    ['objective.latencyWeight', -1, 'objective.latencyWeight', /≥ 0/],
    ['objective.latencyWeight', 0, 'objective.latencyWeight', /must be > 0: with no cost on latency/],
    ['objective.powerWeight', Number.POSITIVE_INFINITY, 'objective.powerWeight', /finite/],
    ['solver.tolerance', -1e-9, 'solver.tolerance', /≥ 0/],
    ['solver.tolerance', 0.5, 'solver.tolerance', /≤ 0.01/],
    ['solver.tolerance', 1e-20, 'solver.tolerance', /≥ 1e-13/],
    ['solver.maxQueue', -1, 'solver.maxQueue', /≥ 0/],
    ['solver.maxQueue', 10.5, 'solver.maxQueue', /integer/],
    ['solver.maxQueue', LIMITS.maxQueue + 1, 'solver.maxQueue', /≤/],
    ['solver.maxIterations', -3, 'solver.maxIterations', /≥ 0/],
    ['solver.backend', 'TPU', 'solver.backend', /AUTO, CPU, GPU/],
    ['solver.method', 'NEWTON', 'solver.method', /POLICY_ITERATION/],
    ['arivalRate', 4000, 'arivalRate', /not a known field/],
    ['serviceTime.linear.slope', 1, 'serviceTime.linear.slope', /not a known field/],
  ];
  for (const [path, value, field, message] of cases) {
    it(`${path} = ${String(value)} → ${field}`, () => {
      const e = refusal(edited(path, value));
      expect(e.field).toBe(field);
      expect(e.reason).toMatch(message);
      expect(e.message.startsWith(`${field}: `)).toBe(true);
    });
  }

  it('both weights zero', () => {
    const s = edited('objective', { latencyWeight: 0, powerWeight: 0 });
    const e = refusal(s);
    expect(e.field).toBe('objective');
    expect(e.reason).toMatch(/both 0/);
  });

  it('a table of the wrong length names its length and B', () => {
    const s = edited('serviceTime', { table: { values: [0.002, 0.003, 0.004] } });
    const e = refusal(s);
    expect(e.field).toBe('serviceTime.table.values');
    expect(e.reason).toMatch(/maxBatchSize = 32 entries \(got 3\)/);
  });

  it('a bad table entry is named by index', () => {
    const values = Array.from({ length: 32 }, (_, i) => 0.002 + 1e-4 * i);
    values[7] = -1;
    const e = refusal(edited('power', { idleWatts: 40, busyTable: { values } }));
    expect(e.field).toBe('power.busyTable.values[7]');
  });

  it('a non-object scenario', () => {
    expect(refusal([1, 2]).field).toBe('scenario');
    expect(refusal(null).field).toBe('scenario');
  });

  it('an explicit maxQueue below 2 is refused by the solve with the field name', async () => {
    await expect(solveScenario(edited('solver.maxQueue', 1))).rejects.toThrow(/solver\.maxQueue: must be ≥ 2, or 0 for automatic \(got 1\)/);
  });

  it('backend GPU without an adapter names solver.backend', async () => {
    const prev = process.env.BATCHWISE_GPU;
    process.env.BATCHWISE_GPU = 'off';
    try {
      await expect(solveScenario(edited('solver.backend', 'GPU'))).rejects.toThrow(/solver\.backend/);
    } finally {
      if (prev === undefined) delete process.env.BATCHWISE_GPU;
      else process.env.BATCHWISE_GPU = prev;
    }
  });

  it('accepts the issue example and derives the moments', () => {
    const v = validateScenario(specScenario(4000, 1e-4));
    expect(v.params.meanService[32]).toBeCloseTo(0.0001438 * 32 + 0.0018874, 15);
    expect(v.params.secondMoment[1]).toBeCloseTo((0.0001438 + 0.0018874) ** 2, 15);
    expect(v.solver.tolerance).toBe(1e-9);
    const g = validateScenario(edited('serviceTime', { linear: { perItem: 1e-4, base: 1e-3 }, distribution: 'GAMMA', cv: 0.5 }));
    expect(g.params.secondMoment[4]).toBeCloseTo(1.4e-3 ** 2 * 1.25, 15);
  });
});
