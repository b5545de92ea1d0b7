import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { validateFleet } from '../../src/fleet/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { SCHEMAS, schemaText } from '../../scripts/schema.js';
import { twoClassFleet } from '../fleet/helpers.js';
import { edit } from '../helpers/edit.js';
import { specScenario } from '../helpers/scenarios.js';
import { ARRIVAL_CASES, FLEET_CASES, SCENARIO_CASES } from './refusals.js';

/**
 * The published schemas (docs/*.schema.json) against the validators they are generated from:
 * valid draft 2020-12, current, accepting the examples, and giving the validator's verdict on
 * every refused input of refusals.ts except the rules only code can check (listed below).
 * ajv comes in through kubernetes-models (devDependency); it is not a direct dependency.
 */
const read = (file: string): unknown => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
const [scenarioSchema, fleetSchema] = SCHEMAS.map(([file]) => read(file) as Record<string, unknown>);
const schemaAccepts = { scenario: ajv.compile(scenarioSchema), fleet: ajv.compile(fleetSchema) };

function validatorAccepts(validate: (input: unknown) => unknown, input: unknown): boolean {
  try {
    validate(input);
    return true;
  } catch {
    return false;
  }
}

/** Refused by the validator, but by rules across fields or values a schema cannot state. */
const CODE_ONLY = new Set([
  // capacity B / l(B), the per-batch values of a linear fit, a table of exactly maxBatchSize entries
  'scenario: arrivalRate above capacity',
  'scenario: linear gives zero',
  'scenario: linear gives too much',
  'scenario: table wrong length',
  'scenario: busyLinear gives too much',
  // a generator's size from rates, its signs by position, row sums, irreducibility; λ̄ against arrivalRate and capacity
  'arrivals: rates silent',
  'arrivals: generator wrong size',
  'arrivals: generator wrong rows',
  'arrivals: generator row length',
  'arrivals: generator row sum',
  'arrivals: generator row sum nested',
  'arrivals: generator diagonal positive',
  'arrivals: generator off-diagonal negative',
  'arrivals: generator reducible',
  'arrivals: arrivalRate differs',
  'arrivals: mean above capacity',
  'arrivals: burst peak too high',
  'arrivals: trace unsorted',
  'arrivals: trace constant',
  // class names unique and keying every serviceTime; fleet totals and load
  'fleet: class repeated',
  'fleet: class process rate differs',
  'fleet: accelerator serviceTime unknown class',
  'fleet: accelerator serviceTime class missing',
  'fleet: accelerators too many in all',
  'fleet: fleet overloaded',
]);

const spec = () => specScenario(4000, 1e-4);
const MMPP = { mmpp: { rates: [1000, 4000], generator: [-5, 5, 20, -20] } };
const withProcess = (arrivalProcess: unknown, arrivalRate?: number) => ({ ...edit(spec(), 'arrivalRate', arrivalRate), arrivalProcess });

/** Accepted by both: the optional forms and the spellings the proto mapping sends. */
const ACCEPTED_SCENARIOS: Array<[string, unknown]> = [
  ['the spec scenario', spec()],
  ['a service-time table', edit(spec(), 'serviceTime', { table: { values: Array.from({ length: 32 }, (_, i) => 0.002 + 1e-4 * i) } })],
  ['a power table', edit(spec(), 'power', { busyTable: { values: new Array(32).fill(100) } })],
  ['gamma in lower case with cv', edit(spec(), 'serviceTime', { linear: { perItem: 1e-4, base: 1e-3 }, distribution: 'gamma', cv: 0.5 })],
  ['cv 0 beside a deterministic law', edit(spec(), 'serviceTime.cv', 0)],
  ['an empty enum (proto unset)', edit(spec(), 'serviceTime.distribution', '')],
  ['the proto zero name of method', edit(spec(), 'solver', { method: 'METHOD_AUTO', backend: 'cpu' })],
  ['solver defaults', edit(spec(), 'solver', { maxQueue: 0, tolerance: 0, maxIterations: 0 })],
  ['an empty solver', edit(spec(), 'solver', {})],
  ['no idle power, no power weight', edit(edit(spec(), 'power.idleWatts', undefined), 'objective.powerWeight', undefined)],
  ['an MMPP without arrivalRate', withProcess(MMPP)],
  ['an MMPP as rows with arrivalRate 0', withProcess({ mmpp: { rates: [1000, 4000], generator: [[-5, 5], [20, -20]] } }, 0)],
  ['an MMPP with arrivalRate λ̄', withProcess(MMPP, 1600)],
  ['a burst profile (docs/mmpp.md)', withProcess({ burst: { meanRate: 2000, peakToMean: 2.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } })],
  ['a trace', withProcess({ trace: { timestamps: Array.from({ length: 1000 }, (_, i) => i * 0.001 + ((i * 7919) % 13) * 1e-5) } })],
];

const ACCEPTED_FLEETS: Array<[string, unknown]> = [
  ['the two-class fleet', twoClassFleet(2, 1)],
  ['mixed batching', twoClassFleet(2, 1, 'MIXED')],
  ['no objective', edit(twoClassFleet(2, 1), 'objective', undefined)],
  ['a power-only objective (allowed for fleets)', edit(twoClassFleet(2, 1), 'objective', { latencyWeight: 0, powerWeight: 1 })],
  [
    'a bursty class (docs/fleet.md)',
    edit(twoClassFleet(2, 1), 'classes.0', { name: 'vision', arrivalProcess: { burst: { meanRate: 1500, peakToMean: 3, meanBurstSeconds: 0.05, meanGapSeconds: 0.25 } }, latencyTarget: 0.01 }),
  ],
];

describe('published schemas', () => {
  it('are valid JSON Schema draft 2020-12 and current', () => {
    for (const [file, make] of SCHEMAS) {
      const schema = read(file) as Record<string, unknown>;
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(ajv.validateSchema(schema), `${file}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
      expect(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), `${file} is stale: node --import tsx scripts/schema.ts`).toBe(schemaText(make()));
    }
  });

  it('accept every example file', () => {
    const sweep = read('examples/sweep.json') as { grid: { base: unknown } };
    for (const [name, doc] of [
      ['examples/scenario.json', read('examples/scenario.json')],
      ['docs/planning-scenario-w1e-3.json', read('docs/planning-scenario-w1e-3.json')],
      ['examples/sweep.json grid.base', sweep.grid.base],
    ] as const) {
      expect(schemaAccepts.scenario(doc), `${name}: ${ajv.errorsText(schemaAccepts.scenario.errors)}`).toBe(true);
      expect(validatorAccepts(validateScenario, doc)).toBe(true);
    }
    expect(schemaAccepts.fleet(read('examples/fleet.json')), ajv.errorsText(schemaAccepts.fleet.errors)).toBe(true);
  });

  const groups = [
    ['scenario', SCENARIO_CASES, 'scenario', validateScenario],
    ['arrivals', ARRIVAL_CASES, 'scenario', validateScenario],
    ['fleet', FLEET_CASES, 'fleet', validateFleet],
  ] as const;
  for (const [group, cases, kind, validate] of groups) {
    describe(`agree with the validator on the ${group} refusals`, () => {
      for (const [name, input] of cases) {
        const key = `${group}: ${name}`;
        it(key, () => {
          const byValidator = validatorAccepts(validate, input);
          if (CODE_ONLY.has(key)) {
            expect([byValidator, schemaAccepts[kind](input)]).toEqual([false, true]);
          } else {
            expect(schemaAccepts[kind](input), ajv.errorsText(schemaAccepts[kind].errors)).toBe(byValidator);
          }
        });
      }
    });
  }

  for (const [kind, cases, validate] of [
    ['scenario', ACCEPTED_SCENARIOS, validateScenario],
    ['fleet', ACCEPTED_FLEETS, validateFleet],
  ] as const) {
    describe(`accept what the validator accepts (${kind})`, () => {
      for (const [name, input] of cases) {
        it(name, () => {
          expect(validatorAccepts(validate, input)).toBe(true);
          expect(schemaAccepts[kind](input), ajv.errorsText(schemaAccepts[kind].errors)).toBe(true);
        });
      }
    });
  }

  it('every code-only case is still one of the refusals', () => {
    const names = new Set(groups.flatMap(([group, cases]) => cases.map(([name]) => `${group}: ${name}`)));
    for (const key of CODE_ONLY) expect(names.has(key), key).toBe(true);
  });
});
