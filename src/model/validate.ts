import { LimitError, ScenarioError } from './errors.js';
import { LIMITS } from './limits.js';
import { checkMmppCapacity, meanRateFor, validateArrivalProcess } from './mmpp/validate.js';
import {
  DEFAULT_TOLERANCE,
  type Backend,
  type Distribution,
  type Method,
  type ModelParams,
  type SolverSettings,
  type ValidatedScenario,
} from './scenario.js';

type Obj = Record<string, unknown>;

const DISTRIBUTIONS: readonly Distribution[] = ['DETERMINISTIC', 'EXPONENTIAL', 'GAMMA'];
const BACKENDS: readonly Backend[] = ['AUTO', 'CPU', 'GPU'];
const METHODS: readonly Method[] = ['AUTO', 'POLICY_ITERATION', 'VALUE_ITERATION'];

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return String(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v;
}

function object(parent: Obj, key: string, path: string, allowed: readonly string[]): Obj {
  const v = parent[key];
  if (v === undefined || v === null) throw new ScenarioError(path, 'is required');
  if (!isObj(v)) throw new ScenarioError(path, `must be an object (got ${describe(v)})`);
  rejectUnknown(v, path, allowed);
  return v;
}

function rejectUnknown(o: Obj, path: string, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) {
      const where = path ? `${path}.${k}` : k;
      throw new ScenarioError(where, `is not a known field (expected one of: ${allowed.join(', ')})`);
    }
  }
}

interface NumberRule {
  /** Inclusive lower bound. */
  min?: number;
  /** Exclusive lower bound. */
  above?: number;
  /** Inclusive upper bound. */
  max?: number;
  integer?: boolean;
}

function checkNumber(v: unknown, path: string, rule: NumberRule): number {
  if (typeof v !== 'number') throw new ScenarioError(path, `must be a number (got ${describe(v)})`);
  if (Number.isNaN(v)) throw new ScenarioError(path, 'must be a number (got NaN)');
  if (!Number.isFinite(v)) throw new ScenarioError(path, `must be finite (got ${v})`);
  if (rule.integer && !Number.isInteger(v)) throw new ScenarioError(path, `must be an integer (got ${v})`);
  if (rule.above !== undefined && !(v > rule.above)) throw new ScenarioError(path, `must be > ${rule.above} (got ${v})`);
  if (rule.min !== undefined && v < rule.min) throw new ScenarioError(path, `must be ≥ ${rule.min} (got ${v})`);
  if (rule.max !== undefined && v > rule.max) throw new ScenarioError(path, `must be ≤ ${rule.max} (got ${v})`);
  return v;
}

function requiredNumber(o: Obj, key: string, path: string, rule: NumberRule): number {
  const v = o[key];
  if (v === undefined || v === null) throw new ScenarioError(path, 'is required');
  return checkNumber(v, path, rule);
}

function optionalNumber(o: Obj, key: string, path: string, rule: NumberRule, fallback: number): number {
  const v = o[key];
  if (v === undefined || v === null) return fallback;
  return checkNumber(v, path, rule);
}

function enumValue<T extends string>(o: Obj, key: string, path: string, values: readonly T[], fallback: T): T {
  const v = o[key];
  if (v === undefined || v === null || v === '') return fallback;
  if (v === 'METHOD_AUTO') return fallback;
  if (typeof v !== 'string' || !values.includes(v.toUpperCase() as T)) {
    throw new ScenarioError(path, `must be one of ${values.join(', ')} (got ${describe(v)})`);
  }
  return v.toUpperCase() as T;
}

/** Reads exactly one of two alternative sub-objects (a proto oneof): linear or table. */
function perBatch(
  o: Obj,
  path: string,
  linearKey: string,
  tableKey: string,
  B: number,
  valueRule: NumberRule,
  unit: string,
): Float64Array {
  const hasLinear = o[linearKey] !== undefined && o[linearKey] !== null;
  const hasTable = o[tableKey] !== undefined && o[tableKey] !== null;
  if (hasLinear && hasTable) {
    throw new ScenarioError(`${path}.${tableKey}`, `give either ${linearKey} or ${tableKey}, not both`);
  }
  if (!hasLinear && !hasTable) throw new ScenarioError(`${path}.${linearKey}`, `is required (or give ${tableKey})`);
  const out = new Float64Array(B + 1);
  if (hasLinear) {
    const p = `${path}.${linearKey}`;
    const lin = object(o, linearKey, p, ['perItem', 'base']);
    const perItem = requiredNumber(lin, 'perItem', `${p}.perItem`, { min: 0, max: valueRule.max });
    const base = requiredNumber(lin, 'base', `${p}.base`, { min: 0, max: valueRule.max });
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
    const table = object(o, tableKey, p, ['values']);
    const values = table.values;
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
  const raw = root.solver;
  if (raw === undefined || raw === null) {
    return { maxQueue: 0, tolerance: DEFAULT_TOLERANCE, maxIterations: 0, backend: 'AUTO', method: 'AUTO' };
  }
  if (!isObj(raw)) throw new ScenarioError('solver', `must be an object (got ${describe(raw)})`);
  rejectUnknown(raw, 'solver', ['maxQueue', 'tolerance', 'maxIterations', 'backend', 'method']);
  const maxQueue = optionalNumber(raw, 'maxQueue', 'solver.maxQueue', { min: 0, max: LIMITS.maxQueue, integer: true }, 0);
  let tolerance = optionalNumber(raw, 'tolerance', 'solver.tolerance', { min: 0, max: LIMITS.maxTolerance }, 0);
  if (tolerance === 0) tolerance = DEFAULT_TOLERANCE;
  if (tolerance < LIMITS.minTolerance) {
    throw new ScenarioError('solver.tolerance', `must be ≥ ${LIMITS.minTolerance} or 0 for the default (got ${tolerance})`);
  }
  const maxIterations = optionalNumber(
    raw,
    'maxIterations',
    'solver.maxIterations',
    { min: 0, max: LIMITS.maxIterations, integer: true },
    0,
  );
  const backend = enumValue(raw, 'backend', 'solver.backend', BACKENDS, 'AUTO');
  const method = enumValue(raw, 'method', 'solver.method', METHODS, 'AUTO');
  return { maxQueue, tolerance, maxIterations, backend, method };
}

/**
 * Validates a scenario in its JSON form and returns the numeric model parameters.
 * Every refusal is a ScenarioError naming the field path and the bound it broke.
 */
export function validateScenario(input: unknown): ValidatedScenario {
  if (!isObj(input)) throw new ScenarioError('scenario', `must be a JSON object (got ${describe(input)})`);
  rejectUnknown(input, '', ['arrivalRate', 'maxBatchSize', 'serviceTime', 'power', 'objective', 'solver', 'arrivalProcess']);

  const hasProcess = input.arrivalProcess !== undefined && input.arrivalProcess !== null;
  const arrivalProcess = hasProcess ? validateArrivalProcess(input.arrivalProcess).process : undefined;
  const arrivalRate = arrivalProcess
    ? meanRateFor(input.arrivalRate, arrivalProcess, LIMITS.maxArrivalRate)
    : requiredNumber(input, 'arrivalRate', 'arrivalRate', { above: 0, max: LIMITS.maxArrivalRate });
  const B = requiredNumber(input, 'maxBatchSize', 'maxBatchSize', { min: 1, max: LIMITS.maxBatchSize, integer: true });

  const st = object(input, 'serviceTime', 'serviceTime', ['linear', 'table', 'distribution', 'cv']);
  const distribution = enumValue(st, 'distribution', 'serviceTime.distribution', DISTRIBUTIONS, 'DETERMINISTIC');
  const meanService = perBatch(st, 'serviceTime', 'linear', 'table', B, {
    min: LIMITS.minServiceTime,
    max: LIMITS.maxServiceTime,
  }, 's');
  let cv = 0;
  if (distribution === 'GAMMA') {
    cv = requiredNumber(st, 'cv', 'serviceTime.cv', { above: 0, max: LIMITS.maxCv });
  } else if (st.cv !== undefined && st.cv !== null && st.cv !== 0) {
    throw new ScenarioError('serviceTime.cv', `applies only to distribution GAMMA (distribution is ${distribution})`);
  } else if (distribution === 'EXPONENTIAL') {
    cv = 1;
  }
  const secondMoment = new Float64Array(B + 1);
  for (let b = 1; b <= B; b++) secondMoment[b] = meanService[b] * meanService[b] * (1 + cv * cv);

  const pw = object(input, 'power', 'power', ['idleWatts', 'busyLinear', 'busyTable']);
  const idlePower = optionalNumber(pw, 'idleWatts', 'power.idleWatts', { min: 0, max: LIMITS.maxWatts }, 0);
  const busyPower = perBatch(pw, 'power', 'busyLinear', 'busyTable', B, { min: 0, max: LIMITS.maxWatts }, 'W');

  const obj = object(input, 'objective', 'objective', ['latencyWeight', 'powerWeight']);
  // A zero latency weight makes the problem degenerate: waiting costs nothing, so every policy
  // that waits longer ties on power and the optimum is not determined.
  const latencyWeight = optionalNumber(obj, 'latencyWeight', 'objective.latencyWeight', { min: 0, max: LIMITS.maxWeight }, 0);
  if (latencyWeight === 0 && !(obj.powerWeight === undefined || obj.powerWeight === null || obj.powerWeight === 0)) {
    throw new ScenarioError(
      'objective.latencyWeight',
      'must be > 0: with no cost on latency, waiting longer is free and the optimal policy is not determined (to minimise power, give a small latencyWeight)',
    );
  }
  const powerWeight = optionalNumber(obj, 'powerWeight', 'objective.powerWeight', { min: 0, max: LIMITS.maxWeight }, 0);
  if (latencyWeight === 0 && powerWeight === 0) {
    throw new ScenarioError('objective', 'latencyWeight and powerWeight are both 0: at least one must be > 0');
  }

  if (arrivalProcess) checkMmppCapacity(arrivalProcess, B, meanService[B]);
  const capacity = B / meanService[B];
  if (!(arrivalRate < capacity)) {
    throw new ScenarioError(
      'arrivalRate',
      `${arrivalRate} /s is not below the capacity maxBatchSize / l(B) = ${B} / ${meanService[B]} s = ${capacity} /s: no policy can keep the queue stable`,
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
  return { params, solver };
}

/** Load relative to capacity, λ·l(B)/B. */
export function loadFactor(p: ModelParams): number {
  return (p.arrivalRate * p.meanService[p.maxBatchSize]) / p.maxBatchSize;
}

export { LimitError };
