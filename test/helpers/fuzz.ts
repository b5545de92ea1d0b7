import { expect } from 'vitest';
import { LimitError, ScenarioError } from '../../src/model/errors.js';
import { LIMITS } from '../../src/model/limits.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { pick, rng } from './random.js';
import { randomScenario } from './randomScenario.js';

type Json = Record<string, unknown>;

/** Ways a new user gets a field wrong; each returns the field path it broke. */
const BREAKERS: Array<(s: Json, r: () => number) => string> = [
  (s, r) => ((s.arrivalRate = pick(r, [-1, 0, Number.NaN, Number.POSITIVE_INFINITY, '100', null])), 'arrivalRate'),
  (s) => ((s.arrivalRate = (s.arrivalRate as number) * 1e3 + 1e12), 'arrivalRate'),
  (s, r) => ((s.maxBatchSize = pick(r, [0, -3, 2.5, LIMITS.maxBatchSize + 1, Number.NaN, undefined])), 'maxBatchSize'),
  (s, r) => (((s.serviceTime as Json).distribution = pick(r, ['NORMAL', 'gamma-ish', 7])), 'serviceTime.distribution'),
  (s) => {
    const st = s.serviceTime as Json;
    st.distribution = 'GAMMA';
    st.cv = -0.5;
    return 'serviceTime.cv';
  },
  (s) => {
    const st = s.serviceTime as Json;
    delete st.linear;
    st.table = { values: new Array<number>((s.maxBatchSize as number) + 1).fill(0.01) };
    return 'serviceTime.table.values';
  },
  (s) => (((s.power as Json).idleWatts = -1), 'power.idleWatts'),
  (s) => ((s.objective = { latencyWeight: 0, powerWeight: 0 }), 'objective'),
  (s, r) => (((s.objective as Json).powerWeight = pick(r, [-1, Number.NaN, Number.NEGATIVE_INFINITY])), 'objective.powerWeight'),
  (s) => ((s.solver = { tolerance: -1 }), 'solver.tolerance'),
  (s) => ((s.solver = { backend: 'TPU' }), 'solver.backend'),
  (s) => ((s.solver = { maxQueue: 1 }), 'solver.maxQueue'),
  (s) => {
    delete s.power;
    return 'power';
  },
  (s) => ((s.unknownKnob = 3), 'unknownKnob'),
];

/** Solves slower than this are printed, to keep an eye on the cost of the suite. */
const SLOW_MS = 5000;

export interface FuzzTally {
  valid: number;
  refused: number;
  limited: number;
}

/**
 * Solves `count` random scenarios, 45 % of them broken in one field. Every refusal must be a
 * ScenarioError naming the broken field; every valid one must come back certified:
 * averageCostLower ≤ averageCost ≤ averageCostUpper (relative 1e-6, for the truncation) and
 * tail mass below 1e-9. A valid scenario may be refused only by a documented bound
 * (LimitError on arrivalRate: too close to capacity for the state bound; on objective: too close
 * to degenerate for f64 evaluation).
 */
export async function fuzz(seed: number, count: number, shape: { maxB: number; rhoMax: number; cvMax?: number }): Promise<FuzzTally> {
  const r = rng(seed);
  const tally: FuzzTally = { valid: 0, refused: 0, limited: 0 };
  for (let i = 0; i < count; i++) {
    const scenario = randomScenario(r, shape);
    const input = JSON.parse(JSON.stringify(scenario)) as Json;
    const breakIt = r() < 0.45;
    const expectedField = breakIt ? pick(r, BREAKERS)(input, r) : '';
    const where = `seed ${seed} #${i}: ${JSON.stringify(input)}`;
    const started = performance.now();
    try {
      // The percentiles have their own fuzz (test/latency/fuzz.test.ts): here the solve alone.
      const res = await solveScenario(input, { percentiles: false });
      const took = performance.now() - started;
      // Slow solves are reported (not failed): speed is measured in bench/, not here.
      if (took > SLOW_MS) console.warn(`fuzz: slow solve ${(took / 1000).toFixed(1)} s, S = ${res.solver.maxQueue}, ${res.solver.method}; ${where}`);
      expect(breakIt, `should have been refused at ${expectedField}; ${where}`).toBe(false);
      tally.valid++;
      expect(Number.isFinite(res.averageCost), where).toBe(true);
      expect(res.averageCostLower, where).toBeLessThanOrEqual(res.averageCost * (1 + 1e-6));
      expect(res.averageCostUpper, where).toBeGreaterThanOrEqual(res.averageCost * (1 - 1e-6));
      expect(res.solver.tailMass, where).toBeLessThan(1e-9);
    } catch (e) {
      if (e instanceof LimitError && !breakIt) {
        expect(['arrivalRate', 'objective'], where).toContain(e.field);
        tally.limited++;
        continue;
      }
      if (!(e instanceof ScenarioError)) throw new Error(`${String(e)} — ${where}`);
      expect(breakIt, `refused (${e.message}); ${where}`).toBe(true);
      expect(e.field.startsWith(expectedField) || expectedField.startsWith(e.field), `${e.field} vs ${expectedField}; ${where}`).toBe(true);
      tally.refused++;
    }
  }
  return tally;
}
