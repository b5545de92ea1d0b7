import { checkObject, checkRoot, isAbsent, isObj, jsonNames, readEnum, readList, readNumber, readObject, readString, type Obj } from '../../validate/index.js';
import { ScenarioError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { DEFAULT_TOLERANCE, type ModelParams, type SolverSettings } from '../scenario.js';
import { GAMMA_CV, POWER_VALUE, SERVICE_TIME, SERVICE_VALUE, SOLVER } from '../shape.js';
import { perBatch } from '../validate.js';
import type { ClassParams, ClassesParams, ValidatedClassesScenario } from './params.js';
import { CLASS, CLASS_POWER, CLASSES_OBJECTIVE, CLASSES_POWER, CLASSES_SCENARIO } from './shape.js';

/** Whether a scenario in JSON form is the multi-class form (it has a `classes` field). */
export function isClassesInput(raw: unknown): boolean {
  // An empty list is the proto field at its default (proto3 JSON with defaults): the single-class form.
  return isObj(raw) && !isAbsent(raw.classes) && !(Array.isArray(raw.classes) && raw.classes.length === 0);
}

/**
 * The single-class scalars of the proto Scenario at their defaults (0), as proto3 JSON prints
 * them with default values, dropped: the multi-class form has no such fields, and any other
 * value of them is still refused by name.
 */
function withoutSingleClassDefaults(raw: unknown): unknown {
  if (!isObj(raw)) return raw;
  const out: Obj = { ...raw };
  for (const k of ['arrivalRate', 'arrival_rate', 'maxBatchSize', 'max_batch_size']) if (out[k] === 0) delete out[k];
  if (isObj(out.objective) && (out.objective.latencyWeight === 0 || out.objective.latency_weight === 0)) {
    const { latencyWeight: _l, latency_weight: _w, ...objective } = out.objective;
    out.objective = objective;
  }
  return out;
}

/**
 * Validates a multi-class scenario (docs/model.md §10). Every refusal is a ScenarioError naming
 * the field path (e.g. `classes[1].maxBatchSize`) and the bound it broke; an unstable load
 * names Σ_c λ_c·l_c(B_c)/B_c with each class's share.
 */
export function validateClassesScenario(raw: unknown): ValidatedClassesScenario {
  const input = checkRoot(jsonNames(withoutSingleClassDefaults(raw), CLASSES_SCENARIO), 'scenario', CLASSES_SCENARIO);
  const list = readList(input, CLASSES_SCENARIO, 'classes', '');
  const classes = list.map((c, i) => readClass(c, i));
  const seen = new Set<string>();
  classes.forEach((c, i) => {
    if (seen.has(c.name)) throw new ScenarioError(`classes[${i}].name`, `"${c.name}" is used by an earlier class; names must differ`);
    seen.add(c.name);
  });
  const pw = readObject(input, CLASSES_SCENARIO, 'power', '') ?? {};
  const idlePower = readNumber(pw, CLASSES_POWER, 'idleWatts', 'power');
  const obj = readObject(input, CLASSES_SCENARIO, 'objective', '') ?? {};
  const powerWeight = readNumber(obj, CLASSES_OBJECTIVE, 'powerWeight', 'objective');
  checkStable(classes);
  const solver = readSolver(input);
  return { params: { classes, idlePower, powerWeight }, solver };
}

function readClass(raw: unknown, i: number): ClassParams {
  const path = `classes[${i}]`;
  const o = checkObject(raw, path, CLASS);
  const name = isAbsent(o.name) ? `class${i + 1}` : readString(o, CLASS, 'name', path);
  const arrivalRate = readNumber(o, CLASS, 'arrivalRate', path);
  const B = readNumber(o, CLASS, 'maxBatchSize', path);
  const st = readObject(o, CLASS, 'serviceTime', path)!;
  const stPath = `${path}.serviceTime`;
  const distribution = readEnum(st, SERVICE_TIME, 'distribution', stPath);
  const meanService = perBatch(st, SERVICE_TIME, 'linear', 'table', stPath, B, SERVICE_VALUE, 's');
  let cv = 0;
  if (distribution === 'GAMMA') cv = readNumber(st, SERVICE_TIME, 'cv', stPath, GAMMA_CV);
  else if (!isAbsent(st.cv) && st.cv !== 0) throw new ScenarioError(`${stPath}.cv`, `applies only to distribution GAMMA (distribution is ${distribution})`);
  else if (distribution === 'EXPONENTIAL') cv = 1;
  const secondMoment = new Float64Array(B + 1);
  for (let b = 1; b <= B; b++) secondMoment[b] = meanService[b] * meanService[b] * (1 + cv * cv);
  const pw = readObject(o, CLASS, 'power', path)!;
  const busyPower = perBatch(pw, CLASS_POWER, 'busyLinear', 'busyTable', `${path}.power`, B, POWER_VALUE, 'W');
  const latencyWeight = readNumber(o, CLASS, 'latencyWeight', path);
  const maxQueue = readNumber(o, CLASS, 'maxQueue', path);
  if (maxQueue !== 0 && maxQueue < 2) throw new ScenarioError(`${path}.maxQueue`, `must be ≥ 2, or 0 for automatic (got ${maxQueue})`);
  if (arrivalRate * meanService[1] < LIMITS.minOfferedLoad) {
    throw new ScenarioError(`${path}.arrivalRate`, `${arrivalRate} /s offers a load λ·l(1) = ${(arrivalRate * meanService[1]).toExponential(2)}, below the bound ${LIMITS.minOfferedLoad}`);
  }
  return { name, arrivalRate, maxBatchSize: B, meanService, secondMoment, busyPower, distribution, cv, latencyWeight, maxQueue };
}

/** Stable iff Σ_c λ_c·l_c(B_c)/B_c < 1 (every class in full batches back to back). */
function checkStable(classes: readonly ClassParams[]): void {
  const shares = classes.map((c) => (c.arrivalRate * c.meanService[c.maxBatchSize]) / c.maxBatchSize);
  const load = shares.reduce((a, b) => a + b, 0);
  if (!(load < 1)) {
    const terms = classes.map((c, i) => `${c.name}: ${c.arrivalRate} /s · ${+c.meanService[c.maxBatchSize].toPrecision(6)} s / ${c.maxBatchSize} = ${+shares[i].toPrecision(6)}`);
    throw new ScenarioError('classes', `the load Σ_c λ_c·l_c(B_c)/B_c = ${+load.toPrecision(6)} is not below 1 (${terms.join('; ')}): no policy can keep the queues stable`);
  }
}

function readSolver(root: Obj): SolverSettings {
  const raw = readObject(root, CLASSES_SCENARIO, 'solver', '');
  if (raw === undefined) return { maxQueue: 0, tolerance: DEFAULT_TOLERANCE, maxIterations: 0, backend: 'AUTO', method: 'AUTO' };
  const maxQueue = readNumber(raw, SOLVER, 'maxQueue', 'solver');
  if (maxQueue !== 0) throw new ScenarioError('solver.maxQueue', `does not apply to classes: give classes[i].maxQueue per class (got ${maxQueue})`);
  let tolerance = readNumber(raw, SOLVER, 'tolerance', 'solver');
  if (tolerance === 0) tolerance = DEFAULT_TOLERANCE;
  if (tolerance < LIMITS.minTolerance) throw new ScenarioError('solver.tolerance', `must be ≥ ${LIMITS.minTolerance} or 0 for the default (got ${tolerance})`);
  const maxIterations = readNumber(raw, SOLVER, 'maxIterations', 'solver');
  const backend = readEnum(raw, SOLVER, 'backend', 'solver');
  const method = readEnum(raw, SOLVER, 'method', 'solver');
  return { maxQueue, tolerance, maxIterations, backend, method };
}

/** A one-class scenario as the single-class model of §2 (w_lat = w_1): solved by the single-class path. */
export function singleClassParams(p: ClassesParams): ModelParams {
  const c = p.classes[0];
  return {
    arrivalRate: c.arrivalRate,
    maxBatchSize: c.maxBatchSize,
    meanService: c.meanService,
    secondMoment: c.secondMoment,
    busyPower: c.busyPower,
    idlePower: p.idlePower,
    distribution: c.distribution,
    cv: c.cv,
    latencyWeight: c.latencyWeight,
    powerWeight: p.powerWeight,
  };
}
