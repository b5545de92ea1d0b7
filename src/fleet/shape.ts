/**
 * The fleet file's fields (docs/fleet.md), described once: validateFleet reads by these
 * descriptions and `fleetSchema()` publishes them (docs/fleet.schema.json). Each accelerator's
 * service times and power are single-server scenario parts, so their shapes are the scenario's.
 */
import { LIMITS } from '../model/limits.js';
import { ARRIVAL_PROCESS } from '../model/mmpp/shape.js';
import { ARRIVAL_RATE, POISSON_UNLESS_PROCESS, POWER, SERVICE_TIME } from '../model/shape.js';
import { array, documentSchema, enumOf, mapOf, number, object, string, type JsonSchema } from '../validate/index.js';

export const FLEET_LIMITS = { maxClasses: 16, maxAccelerators: 256, maxKinds: 16 } as const;

/** Fleet refusals show the offending value as JSON ("must be a finite number (got {"a":1})"). */
const wording = 'json';

export const FLEET_CLASS = object(
  'A request class',
  {
    name: string('unique name; every accelerator group keys its serviceTime by it', { nonEmpty: true, required: true }),
    arrivalRate: { ...ARRIVAL_RATE, doc: 'Poisson arrival rate, requests/s (> 0 without arrivalProcess; with it 0, omitted, or its mean rate)' },
    arrivalProcess: ARRIVAL_PROCESS,
    latencyTarget: number('mean response-time target, seconds (planning); absent = none', { above: 0, max: 1e6 }),
    weight: number("weight of the class's mean response time in the objective", { min: 0, max: LIMITS.maxWeight, default: 1 }),
  },
  { also: POISSON_UNLESS_PROCESS, wording, name: 'fleetClass' },
);

export const ACCELERATOR = object(
  'A group of identical accelerators',
  {
    name: string('name of the group', { nonEmpty: true, required: true }),
    count: number('accelerators in the group', { min: 1, max: FLEET_LIMITS.maxAccelerators, integer: true, required: true }),
    maxBatchSize: number('B of each accelerator', { min: 1, max: LIMITS.maxBatchSize, integer: true, required: true }),
    serviceTime: mapOf('service-time model of each class on this kind, keyed by class name (every class, no other)', SERVICE_TIME, { required: true }),
    power: POWER,
    policy: string('batching policy of every accelerator of the group (simulator syntax)', { nonEmpty: true, default: 'greedy' }),
  },
  { wording, name: 'accelerator' },
);

const BOTH_WEIGHTS_ZERO: JsonSchema = { required: ['latencyWeight'], properties: { latencyWeight: { const: 0 }, powerWeight: { const: 0 } } };

export const FLEET_OBJECTIVE = object(
  'Cost rate = latencyWeight · Σ weight·mean response time + powerWeight · mean power; not both 0',
  {
    latencyWeight: number('per second of weighted mean response time', { min: 0, max: LIMITS.maxWeight, default: 1 }),
    powerWeight: number('per watt of mean power', { min: 0, max: LIMITS.maxWeight, default: 0 }),
  },
  { also: { not: BOTH_WEIGHTS_ZERO }, wording, name: 'fleetObjective' },
);

/** How a batch may mix classes: one class per batch, or any mix at the slowest class's speed. */
export type BatchingMode = 'PER_CLASS' | 'MIXED';
const BATCHING: readonly BatchingMode[] = ['PER_CLASS', 'MIXED'];

export const FLEET = object(
  'A fleet: accelerator groups serving request classes. Units: seconds, watts, requests/s',
  {
    classes: array('request classes', FLEET_CLASS, { minItems: 1, maxItems: FLEET_LIMITS.maxClasses, required: true }),
    accelerators: array('accelerator groups', ACCELERATOR, { minItems: 1, maxItems: FLEET_LIMITS.maxKinds, required: true }),
    batching: enumOf('PER_CLASS: one queue per class, single-class batches; MIXED: one FIFO, mixed batches', BATCHING, { default: 'PER_CLASS' }),
    objective: FLEET_OBJECTIVE,
  },
  { wording },
);

/** The fleet file's JSON Schema (written to docs/fleet.schema.json by scripts/schema.ts). */
export function fleetSchema(): JsonSchema {
  return documentSchema(FLEET, 'batchwise fleet');
}
