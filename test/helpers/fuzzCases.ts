import { LIMITS } from '../../src/model/limits.js';
import { pick, rng } from './random.js';
import { randomScenario } from './randomScenario.js';

/**
 * The fuzz's scenarios (test/helpers/fuzz.ts checks them, bench/fuzzAgreement.bench.ts compares
 * two builds on them): no vitest here, so the bench can draw the very same cases.
 */

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

/** The four parts of the fuzz in CI (test/solve/fuzz-*.test.ts), by name. */
export const FUZZ_PARTS = {
  part1: { seed: 2026_11_30 + 1, count: 3300, shape: { maxB: 32, rhoMax: 0.85, cvMax: 1.5 } },
  part2: { seed: 2026_11_30 + 2, count: 3300, shape: { maxB: 32, rhoMax: 0.85, cvMax: 1.5 } },
  part3: { seed: 2026_11_30 + 3, count: 3300, shape: { maxB: 32, rhoMax: 0.85, cvMax: 1.5 } },
  extremes: { seed: 7, count: 100, shape: { maxB: LIMITS.maxBatchSize, rhoMax: 0.995 } },
} as const;

export interface FuzzShape {
  readonly maxB: number;
  readonly rhoMax: number;
  readonly cvMax?: number;
}

export interface FuzzCase {
  /** The scenario as sent (broken in one field when `expectedField` is not empty). */
  readonly input: Json;
  readonly expectedField: string;
  /** Names the case in messages: seed, index and the input. */
  readonly where: string;
}

/** `count` random scenarios from `seed`, 45 % of them broken in one field. */
export function* fuzzCases(seed: number, count: number, shape: FuzzShape): Generator<FuzzCase> {
  const r = rng(seed);
  for (let i = 0; i < count; i++) {
    const scenario = randomScenario(r, shape);
    const input = JSON.parse(JSON.stringify(scenario)) as Json;
    const breakIt = r() < 0.45;
    const expectedField = breakIt ? pick(r, BREAKERS)(input, r) : '';
    yield { input, expectedField, where: `seed ${seed} #${i}: ${JSON.stringify(input)}` };
  }
}
