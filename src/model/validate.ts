import { checkNumber, checkRoot, isAbsent, isObj, jsonNames, readEnum, readNumber, readObject, type KeysOf, type NumberRule, type Obj, type ObjectShape } from '../validate/index.js';
import { LimitError, ScenarioError } from './errors.js';
import { LIMITS } from './limits.js';
import type { MmppProcess } from './mmpp/process.js';
import { checkMmppCapacity, meanRateFor, validateArrivalProcess } from './mmpp/validate.js';
import { applyRestriction, readRestrictions } from './restriction.js';
import { DEFAULT_TOLERANCE, type ModelParams, type SolverSettings, type ValidatedScenario } from './scenario.js';
import { GAMMA_CV, OBJECTIVE, POISSON_RATE, POWER, POWER_VALUE, SCENARIO, SERVICE_TIME, SERVICE_VALUE, SOLVER, type LinearFitShape } from './shape.js';

/** Reads exactly one of two alternative sub-objects (a proto oneof): linear or table. */
export function perBatch<S extends ObjectShape>(
  o: Obj,
  shape: S,
  linearKey: KeysOf<S, 'object'>,
  tableKey: KeysOf<S, 'object'>,
  path: string,
  B: number,
  valueRule: NumberRule,
  unit: string,
): Float64Array {
  const hasLinear = !isAbsent(o[linearKey]);
  const hasTable = !isAbsent(o[tableKey]);
  if (hasLinear && hasTable) {
    throw new ScenarioError(`${path}.${tableKey}`, `give either ${linearKey} or ${tableKey}, not both`);
  }
  if (!hasLinear && !hasTable) throw new ScenarioError(`${path}.${linearKey}`, `is required (or give ${tableKey})`);
  const out = new Float64Array(B + 1);
  if (hasLinear) {
    const p = `${path}.${linearKey}`;
    const fit = shape.fields[linearKey] as unknown as LinearFitShape;
    const lin = readObject(o, shape, linearKey, path)!;
    const perItem = readNumber(lin, fit, 'perItem', p);
    const base = readNumber(lin, fit, 'base', p);
    for (let b = 1; b <= B; b++) {
      const v = perItem * b + base;
      if (!(v > (valueRule.above ?? -Infinity)) || (valueRule.min !== undefined && v < valueRule.min)) {
        throw new ScenarioError(p, `gives ${v} ${unit} at b = ${b}; it must be ${describeRule(valueRule)}`);
      }
      if (valueRule.max !== undefined && v > valueRule.max) {
        throw new ScenarioError(p, `gives ${v} ${unit} at b = ${b}; it must be ≤ ${valueRule.max}`);
      }
      out[b] = v;
    }
  } else {
    const p = `${path}.${tableKey}`;
    const values = readObject(o, shape, tableKey, path)!.values;
    if (!Array.isArray(values)) throw new ScenarioError(`${p}.values`, `must be an array of ${B} numbers`);
    if (values.length !== B) {
      throw new ScenarioError(`${p}.values`, `must have maxBatchSize = ${B} entries (got ${values.length})`);
    }
    values.forEach((v, i) => {
      out[i + 1] = checkNumber(v, `${p}.values[${i}]`, valueRule);
    });
  }
  return out;
}

function describeRule(r: NumberRule): string {
  const parts: string[] = [];
  if (r.above !== undefined) parts.push(`> ${r.above}`);
  if (r.min !== undefined) parts.push(`≥ ${r.min}`);
  if (r.max !== undefined) parts.push(`≤ ${r.max}`);
  return parts.join(' and ');
}

function validateSolver(root: Obj): SolverSettings {
  const raw = readObject(root, SCENARIO, 'solver', '');
  if (raw === undefined) return { maxQueue: 0, tolerance: DEFAULT_TOLERANCE, maxIterations: 0, backend: 'AUTO', method: 'AUTO' };
  const maxQueue = readNumber(raw, SOLVER, 'maxQueue', 'solver');
  let tolerance = readNumber(raw, SOLVER, 'tolerance', 'solver');
  if (tolerance === 0) tolerance = DEFAULT_TOLERANCE;
  if (tolerance < LIMITS.minTolerance) {
    throw new ScenarioError('solver.tolerance', `must be ≥ ${LIMITS.minTolerance} or 0 for the default (got ${tolerance})`);
  }
  const maxIterations = readNumber(raw, SOLVER, 'maxIterations', 'solver');
  const backend = readEnum(raw, SOLVER, 'backend', 'solver');
  const method = readEnum(raw, SOLVER, 'method', 'solver');
  return { maxQueue, tolerance, maxIterations, backend, method };
}

/**
 * Validates a scenario in its JSON form and returns the numeric model parameters.
 * Every refusal is a ScenarioError naming the field path and the bound it broke.
 */
/**
 * `classes: []` is the proto Scenario's multi-class field at its default, as proto3 JSON prints
 * it with default values: the single-class form, read as if it were absent.
 */
function withoutEmptyClasses(raw: unknown): unknown {
  if (!isObj(raw) || !Array.isArray(raw.classes) || raw.classes.length > 0) return raw;
  const { classes: _c, ...rest } = raw;
  return rest;
}

export function validateScenario(raw: unknown): ValidatedScenario {
  // Proto field names (arrival_rate) are read as their JSON names (arrivalRate), as proto3 JSON parsers do.
  const input = checkRoot(jsonNames(withoutEmptyClasses(raw), SCENARIO), 'scenario', SCENARIO);

  const arrivalProcess = isAbsent(input.arrivalProcess) ? undefined : validateArrivalProcess(input.arrivalProcess).process;
  const arrivalRate = arrivalProcess
    ? meanRateFor(input.arrivalRate, arrivalProcess, LIMITS.maxArrivalRate)
    : readNumber(input, SCENARIO, 'arrivalRate', '', POISSON_RATE);
  const B = readNumber(input, SCENARIO, 'maxBatchSize', '');

  const st = readObject(input, SCENARIO, 'serviceTime', '')!;
  const distribution = readEnum(st, SERVICE_TIME, 'distribution', 'serviceTime');
  const meanService = perBatch(st, SERVICE_TIME, 'linear', 'table', 'serviceTime', B, SERVICE_VALUE, 's');
  let cv = 0;
  if (distribution === 'GAMMA') {
    cv = readNumber(st, SERVICE_TIME, 'cv', 'serviceTime', GAMMA_CV);
  } else if (!isAbsent(st.cv) && st.cv !== 0) {
    throw new ScenarioError('serviceTime.cv', `applies only to distribution GAMMA (distribution is ${distribution})`);
  } else if (distribution === 'EXPONENTIAL') {
    cv = 1;
  }
  const secondMoment = new Float64Array(B + 1);
  for (let b = 1; b <= B; b++) secondMoment[b] = meanService[b] * meanService[b] * (1 + cv * cv);

  const pw = readObject(input, SCENARIO, 'power', '')!;
  const idlePower = readNumber(pw, POWER, 'idleWatts', 'power');
  const busyPower = perBatch(pw, POWER, 'busyLinear', 'busyTable', 'power', B, POWER_VALUE, 'W');

  const obj = readObject(input, SCENARIO, 'objective', '')!;
  // A zero latency weight makes the problem degenerate: waiting costs nothing, so every policy
  // that waits longer ties on power and the optimum is not determined.
  const latencyWeight = readNumber(obj, OBJECTIVE, 'latencyWeight', 'objective');
  if (latencyWeight === 0 && !(isAbsent(obj.powerWeight) || obj.powerWeight === 0)) {
    throw new ScenarioError(
      'objective.latencyWeight',
      'must be > 0: with no cost on latency, waiting longer is free and the optimal policy is not determined (to minimise power, give a small latencyWeight)',
    );
  }
  const powerWeight = readNumber(obj, OBJECTIVE, 'powerWeight', 'objective');
  if (latencyWeight === 0 && powerWeight === 0) {
    throw new ScenarioError('objective', 'latencyWeight and powerWeight are both 0: at least one must be > 0');
  }

  checkCapacity(B, meanService, arrivalProcess, arrivalRate);

  if (arrivalRate * meanService[1] < LIMITS.minOfferedLoad) {
    const field = arrivalProcess ? 'arrivalProcess' : 'arrivalRate';
    throw new ScenarioError(
      field,
      `${+arrivalRate.toPrecision(6)} /s offers a load λ·l(1) = ${(arrivalRate * meanService[1]).toExponential(2)}, below the bound ${LIMITS.minOfferedLoad}: ` +
        `a certified solve needs at least ${+(LIMITS.minOfferedLoad / meanService[1]).toPrecision(3)} /s here`,
    );
  }

  const solver = validateSolver(input);
  const params: ModelParams = {
    arrivalRate,
    maxBatchSize: B,
    meanService,
    secondMoment,
    busyPower,
    idlePower,
    distribution,
    cv,
    latencyWeight,
    powerWeight,
    ...(arrivalProcess ? { arrivalProcess } : {}),
  };
  const rawRestrictions = readObject(input, SCENARIO, 'restrictions', '');
  const restriction = rawRestrictions === undefined ? undefined : readRestrictions(rawRestrictions, B);
  if (restriction === undefined) return { params, solver };
  const restricted = applyRestriction(params, restriction);
  // A cap below B lowers the capacity: the restricted model must still be able to keep up.
  if (restricted.maxBatchSize < B) {
    const field = restriction.maxOngoingRequests > 0 ? 'restrictions.maxOngoingRequests' : 'restrictions.allowedBatchSizes';
    checkCapacity(restricted.maxBatchSize, restricted.meanService, arrivalProcess, arrivalRate, field);
  }
  return { params: restricted, solver };
}

/**
 * λ (or λ̄) below the capacity B/l(B) of full batches back to back. With `restrictedBy` (the
 * restriction field that lowered the largest batch to B) that field is named.
 */
function checkCapacity(B: number, meanService: Float64Array, arrivalProcess: MmppProcess | undefined, arrivalRate: number, restrictedBy?: string): void {
  const lB = meanService[B];
  const capacity = B / lB;
  if (restrictedBy !== undefined) {
    if (!(arrivalRate < capacity)) {
      throw new ScenarioError(
        restrictedBy,
        `caps every batch at ${B}: the capacity ${B} / l(${B}) = ${B} / ${+lB.toPrecision(6)} s = ${+capacity.toPrecision(6)} /s is not above the arrival rate ${+arrivalRate.toPrecision(6)} /s, so no policy the target can run keeps the queue stable`,
      );
    }
    return;
  }
  if (arrivalProcess) checkMmppCapacity(arrivalProcess, B, lB);
  if (!(arrivalRate < capacity)) {
    throw new ScenarioError(
      'arrivalRate',
      `${arrivalRate} /s is not below the capacity maxBatchSize / l(B) = ${B} / ${+lB.toPrecision(6)} s = ${+capacity.toPrecision(6)} /s: ` +
        `no policy can keep the queue stable${millisecondHint(meanService[1], arrivalRate < 1000 * capacity)}`,
    );
  }
}

/** Load relative to capacity, λ·l(B)/B. */
export function loadFactor(p: ModelParams): number {
  return (p.arrivalRate * p.meanService[p.maxBatchSize]) / p.maxBatchSize;
}

export { LimitError };

/**
 * Service times are in seconds. One of half a second or more per request, with a load that would
 * fit were they milliseconds, is most likely milliseconds written as seconds: say so.
 */
export function millisecondHint(l1: number, fitsInMs: boolean): string {
  return l1 >= 0.5 && fitsInMs ? ` (serviceTime is in seconds: l(1) = ${+l1.toPrecision(6)} s; were these milliseconds, write ${+(l1 / 1000).toPrecision(6)})` : '';
}
