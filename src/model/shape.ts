/**
 * The scenario file's fields (README "The scenario format"), described once: validate.ts reads
 * a scenario by these descriptions and `scenarioSchema()` publishes them as JSON Schema
 * (docs/scenario.schema.json). Cross-field rules the validator checks in code carry their schema
 * counterpart in `also`, next to the field they constrain.
 */
import { array, caselessPattern, documentSchema, enumOf, number, object, type JsonSchema, type NumberRule } from '../validate/index.js';
import { LIMITS } from './limits.js';
import { ARRIVAL_PROCESS } from './mmpp/shape.js';
import { DEFAULT_TOLERANCE, type Backend, type BatchSizeRule, type Distribution, type Method } from './scenario.js';

/** Bounds of one mean service time l(b), seconds, and of one power draw P(b), watts. */
export const SERVICE_VALUE = { min: LIMITS.minServiceTime, max: LIMITS.maxServiceTime } as const satisfies NumberRule;
export const POWER_VALUE = { min: 0, max: LIMITS.maxWatts } as const satisfies NumberRule;
/** cv of a GAMMA service time (the other laws take none). */
export const GAMMA_CV = { min: LIMITS.minCv, max: LIMITS.maxCv } as const satisfies NumberRule;
/** arrivalRate with Poisson arrivals (no arrivalProcess): required and > 0. */
export const POISSON_RATE = { above: 0, max: LIMITS.maxArrivalRate } as const satisfies NumberRule;

export type LinearFitShape = ReturnType<typeof linearFit>;

/** Without arrivalProcess, arrivalRate is required and > 0 (meanRateFor handles it beside a process). */
export const POISSON_UNLESS_PROCESS: JsonSchema = {
  if: { not: { required: ['arrivalProcess'] } },
  then: { required: ['arrivalRate'], properties: { arrivalRate: { type: 'number', exclusiveMinimum: POISSON_RATE.above } } },
};

/** arrivalRate beside an optional arrivalProcess: the Poisson bounds, loosened to 0 for "the process's mean rate". */
export const ARRIVAL_RATE = number(
  'λ, Poisson arrivals per second (> 0 without arrivalProcess; with it 0, omitted, or its mean rate); below the capacity maxBatchSize / l(maxBatchSize)',
  { min: 0, max: POISSON_RATE.max },
);

function linearFit(name: string, unit: string, value: NumberRule) {
  const part = (doc: string) => number(`${doc}, ${unit}`, { min: 0, max: value.max, required: true });
  return object('perItem·b + base for a batch of b', { perItem: part('per item'), base: part('per batch') }, { name });
}

function table(name: string, doc: string, value: NumberRule) {
  return object(
    doc,
    { values: array('one value per batch size b = 1..maxBatchSize (exactly maxBatchSize entries)', number('one value', value), { minItems: 1, maxItems: LIMITS.maxBatchSize, required: true }) },
    { name },
  );
}

const DISTRIBUTIONS: readonly Distribution[] = ['DETERMINISTIC', 'EXPONENTIAL', 'GAMMA'];
const BACKENDS: readonly Backend[] = ['AUTO', 'CPU', 'GPU'];
const METHODS: readonly Method[] = ['AUTO', 'POLICY_ITERATION', 'VALUE_ITERATION'];
/** Enum values as the proto JSON mapping sends them: any case, '' for unset. */
const PROTO_ENUM = { caseless: true, emptyIsDefault: true } as const;

/** GAMMA needs cv > 0; the other laws take no cv (0 = unset). */
const CV_ONLY_WITH_GAMMA: JsonSchema = {
  if: { properties: { distribution: { type: 'string', pattern: caselessPattern(['GAMMA']) } }, required: ['distribution'] },
  then: { required: ['cv'], properties: { cv: { type: 'number', minimum: GAMMA_CV.min } } },
  else: { properties: { cv: { const: 0 } } },
};

export const SERVICE_TIME = object(
  'Mean service time l(b) of a batch of b, seconds: linear or table, and its law',
  {
    linear: linearFit('serviceLinear', 's', SERVICE_VALUE),
    table: table('serviceTable', 'l(1..B), seconds', SERVICE_VALUE),
    distribution: enumOf('law of the service time around l(b)', DISTRIBUTIONS, { ...PROTO_ENUM, default: 'DETERMINISTIC' }),
    cv: number(`coefficient of variation, GAMMA only (${LIMITS.minCv} ≤ cv ≤ ${LIMITS.maxCv}); 0 or absent otherwise`, { min: 0, max: GAMMA_CV.max }),
  },
  { exactlyOne: ['linear', 'table'], also: CV_ONLY_WITH_GAMMA, name: 'serviceTime', required: true },
);

export const POWER = object(
  'Power draw, watts: P0 while idle, P(b) while a batch of b is served (busyLinear or busyTable)',
  {
    idleWatts: number('P0, watts', { ...POWER_VALUE, default: 0 }),
    busyLinear: linearFit('powerLinear', 'W', POWER_VALUE),
    busyTable: table('powerTable', 'P(1..B), watts', POWER_VALUE),
  },
  { exactlyOne: ['busyLinear', 'busyTable'], name: 'power', required: true },
);

const weight = (doc: string) => number(doc, { min: 0, max: LIMITS.maxWeight, default: 0 });

export const OBJECTIVE = object(
  'Cost rate = latencyWeight · mean response time + powerWeight · mean power',
  {
    latencyWeight: weight('per second of mean response time; must be > 0 (a power-only objective is degenerate)'),
    powerWeight: weight('per watt of mean power'),
  },
  // validateScenario refuses latencyWeight 0 with any powerWeight, so only > 0 passes.
  { also: { required: ['latencyWeight'], properties: { latencyWeight: { type: 'number', exclusiveMinimum: 0 } } }, name: 'objective', required: true },
);

export const SOLVER = object(
  'Solver settings; every field 0 or absent means automatic',
  {
    maxQueue: number('truncation level S; 0 = automatic', { min: 0, max: LIMITS.maxQueue, integer: true, default: 0 }),
    tolerance: number(`relative gap of the certified interval, in [${LIMITS.minTolerance}, ${LIMITS.maxTolerance}]; 0 = ${DEFAULT_TOLERANCE}`, {
      min: 0,
      max: LIMITS.maxTolerance,
      default: 0,
      also: { not: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: LIMITS.minTolerance } },
    }),
    maxIterations: number('iteration cap; 0 = automatic', { min: 0, max: LIMITS.maxIterations, integer: true, default: 0 }),
    backend: enumOf('where to solve', BACKENDS, { ...PROTO_ENUM, default: 'AUTO' }),
    method: enumOf('AUTO is policy iteration', METHODS, { ...PROTO_ENUM, default: 'AUTO', aliases: { METHOD_AUTO: 'AUTO' } }),
  },
  { name: 'solver' },
);

const BATCH_SIZE_RULES: readonly BatchSizeRule[] = ['PAD_TO_ALLOWED', 'ONLY_ALLOWED'];

/** Largest max_ongoing_requests taken (Ray's own field is an int; beyond the batch size it only stops mattering). */
export const MAX_ONGOING_LIMIT = 1_000_000;

export const RESTRICTIONS = object(
  "What the target serving system lets a policy do (docs/model.md §11.1); the solve's optimum is then one the target can run",
  {
    allowedBatchSizes: array(
      'batch sizes the target runs (TF Serving allowed_batch_sizes): distinct integers in 1..maxBatchSize, the largest equal to maxBatchSize',
      number('one allowed size', { min: 1, max: LIMITS.maxBatchSize, integer: true }),
      { minItems: 1, maxItems: LIMITS.maxBatchSize },
    ),
    batchSizeRule: enumOf(
      'PAD_TO_ALLOWED: any batch, padded to (and charged the service time and power of) the smallest allowed size ≥ it, as TF Serving runs it; ONLY_ALLOWED: batches of allowed sizes only',
      BATCH_SIZE_RULES,
      { ...PROTO_ENUM, default: 'PAD_TO_ALLOWED' },
    ),
    maxOngoingRequests: number('cap on the requests the target holds (Ray Serve max_ongoing_requests): no batch exceeds it; 0 = none', {
      min: 0,
      max: MAX_ONGOING_LIMIT,
      integer: true,
      default: 0,
    }),
  },
  { name: 'restrictions' },
);

export const SCENARIO = object(
  'A batching scenario: arrivals, the batch-size limit, service times, power and the objective. Units: seconds, watts, requests/s',
  {
    arrivalRate: ARRIVAL_RATE,
    maxBatchSize: number('B, the largest batch', { min: 1, max: LIMITS.maxBatchSize, integer: true, required: true }),
    serviceTime: SERVICE_TIME,
    power: POWER,
    objective: OBJECTIVE,
    solver: SOLVER,
    arrivalProcess: ARRIVAL_PROCESS,
    restrictions: RESTRICTIONS,
  },
  { also: POISSON_UNLESS_PROCESS },
);

/** The scenario file's JSON Schema (written to docs/scenario.schema.json by scripts/schema.ts). */
export function scenarioSchema(): JsonSchema {
  return documentSchema(SCENARIO, 'batchwise scenario');
}
