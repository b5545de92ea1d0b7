/**
 * The multi-class scenario's fields (docs/model.md §10): the single-class service-time block is
 * reused per class; power splits into the shared idle draw and each class's busy draw.
 */
import { array, number, object, string } from '../../validate/index.js';
import { LIMITS } from '../limits.js';
import { SERVICE_TIME, SOLVER, POWER_VALUE } from '../shape.js';
import { MAX_CLASSES } from './params.js';

const fit = (unit: string) =>
  object('perItem·b + base for a batch of b', {
    perItem: number(`per item, ${unit}`, { min: 0, max: POWER_VALUE.max, required: true }),
    base: number(`per batch, ${unit}`, { min: 0, max: POWER_VALUE.max, required: true }),
  });

export const CLASS_POWER = object(
  "This class's busy power P_c(b), watts (busyLinear or busyTable)",
  {
    busyLinear: fit('W'),
    busyTable: object('P_c(1..B_c), watts', { values: array('one value per b', number('one value', POWER_VALUE), { minItems: 1, maxItems: LIMITS.maxBatchSize, required: true }) }),
  },
  { exactlyOne: ['busyLinear', 'busyTable'], required: true },
);

export const CLASS = object('One request class: its arrivals, batch limit, service law, busy power and latency weight', {
  name: string('a name for the results (default class<i>)', { nonEmpty: true }),
  arrivalRate: number('λ_c, Poisson arrivals per second', { above: 0, max: LIMITS.maxArrivalRate, required: true }),
  maxBatchSize: number('B_c, the largest batch of this class', { min: 1, max: LIMITS.maxBatchSize, integer: true, required: true }),
  serviceTime: SERVICE_TIME,
  power: CLASS_POWER,
  latencyWeight: number('w_c, per second of this class’s mean response time (> 0)', { above: 0, max: LIMITS.maxWeight, required: true }),
  maxQueue: number('truncation S_c of this class; 0 = automatic', { min: 0, max: LIMITS.maxQueue, integer: true, default: 0 }),
});

export const CLASSES_POWER = object('Shared power: P0 while idle, watts', { idleWatts: number('P0, watts', { ...POWER_VALUE, default: 0 }) });
export const CLASSES_OBJECTIVE = object('Cost rate = Σ_c w_c · E[R_c] + powerWeight · mean power', {
  powerWeight: number('per watt of mean power', { min: 0, max: LIMITS.maxWeight, default: 0 }),
});

export const CLASSES_SCENARIO = object('Several request classes sharing one accelerator, one class per batch', {
  classes: array('the classes, 1 to 3', CLASS, { minItems: 1, maxItems: MAX_CLASSES, required: true }),
  power: CLASSES_POWER,
  objective: CLASSES_OBJECTIVE,
  solver: SOLVER,
});
