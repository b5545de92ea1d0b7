/**
 * The fleet scenario: several accelerator groups serving several request classes. Each
 * (accelerator kind, class) pair is a single-server scenario of docs/model.md §1 (its own service
 * times, the kind's power model), so validation reuses validateScenario for every pair and
 * the exact solver can be run on any pair at any arrival rate (segregation planning).
 */
import { ScenarioError } from '../model/errors.js';
import type { MmppProcess } from '../model/mmpp/process.js';
import type { ArrivalProcessSpec } from '../model/mmpp/spec.js';
import { meanRateFor, validateArrivalProcess } from '../model/mmpp/validate.js';
import type { ModelParams, PowerSpec, Scenario, ServiceTimeSpec } from '../model/scenario.js';
import { POISSON_RATE } from '../model/shape.js';
import { validateScenario } from '../model/validate.js';
import { checkObject, checkRoot, isAbsent, isObj, jsonNames, optionalNumber, readEnum, readList, readNumber, readString, rejectUnknown, underField } from '../validate/index.js';
import { ACCELERATOR, FLEET, FLEET_CLASS, FLEET_LIMITS, FLEET_OBJECTIVE, type BatchingMode } from './shape.js';

export { FLEET_LIMITS };

/** How an accelerator forms batches from several classes. */
export type { BatchingMode };

/** JSON form of a request class. */
export interface FleetClassSpec {
  name: string;
  /** Poisson arrival rate, requests/s; with arrivalProcess: omitted, 0, or its mean rate. */
  arrivalRate?: number;
  /** Bursty (MMPP) arrivals instead of Poisson: the single-server scenario's arrivalProcess (docs/mmpp.md). */
  arrivalProcess?: ArrivalProcessSpec;
  /** Mean response-time target, seconds (planning); absent = none. */
  latencyTarget?: number;
  /** Weight of the class's mean response time in the objective (default 1). */
  weight?: number;
}

/** JSON form of a group of identical accelerators. */
export interface AcceleratorSpec {
  name: string;
  count: number;
  maxBatchSize: number;
  /** Service-time model of each class on this kind, keyed by class name. */
  serviceTime: Record<string, ServiceTimeSpec>;
  power: PowerSpec;
  /** Batching policy of every accelerator of the group (simulator syntax, default `greedy`). */
  policy?: string;
}

export interface FleetScenario {
  classes: FleetClassSpec[];
  accelerators: AcceleratorSpec[];
  /** PER_CLASS (default): one queue per class, single-class batches; MIXED: one FIFO, mixed batches. */
  batching?: BatchingMode;
  objective?: { latencyWeight?: number; powerWeight?: number };
}

export interface FleetClass {
  readonly name: string;
  /** Mean arrival rate, requests/s (λ̄ = π·λ for MMPP arrivals). */
  readonly arrivalRate: number;
  /** MMPP arrivals; absent = Poisson at arrivalRate. */
  readonly arrivalProcess?: MmppProcess;
  readonly latencyTarget: number | null;
  readonly weight: number;
}

export interface AcceleratorKind {
  readonly name: string;
  readonly count: number;
  readonly maxBatchSize: number;
  readonly policy: string;
  /** pairs[c]: the single-server model of class c alone on this kind (its arrivalRate is a placeholder). */
  readonly pairs: readonly ModelParams[];
  /** The JSON the pairs were validated from, for exact solves at a chosen rate. */
  readonly serviceSpecs: readonly ServiceTimeSpec[];
  readonly powerSpec: PowerSpec;
  readonly busyPower: Float64Array;
  readonly idlePower: number;
}

/** The validated fleet. */
export interface FleetParams {
  readonly classes: readonly FleetClass[];
  readonly kinds: readonly AcceleratorKind[];
  readonly batching: BatchingMode;
  readonly latencyWeight: number;
  readonly powerWeight: number;
  /** Total accelerators, Σ count. */
  readonly accelerators: number;
}

/** The single-server scenario JSON of class `c` alone on kind `k` at `rate`, with the given weights. */
export function pairScenario(kind: Pick<AcceleratorKind, 'maxBatchSize' | 'serviceSpecs' | 'powerSpec'>, c: number, rate: number, latencyWeight: number, powerWeight: number): Scenario {
  return {
    arrivalRate: rate,
    maxBatchSize: kind.maxBatchSize,
    serviceTime: kind.serviceSpecs[c],
    power: kind.powerSpec,
    objective: { latencyWeight, powerWeight },
  };
}

/**
 * Validates a fleet scenario. Every refusal is a ScenarioError naming the JSON path, e.g.
 * `accelerators[1].serviceTime.language.linear.perItem`.
 */
export function validateFleet(raw: unknown): FleetParams {
  const input = checkRoot(jsonNames(raw, FLEET), 'fleet', FLEET);

  const classes: FleetClass[] = readList(input, FLEET, 'classes', '').map((item, i) => {
    const path = `classes[${i}]`;
    const c = checkObject(item, path, FLEET_CLASS);
    const name = readString(c, FLEET_CLASS, 'name', path);
    let arrivalRate: number;
    let arrivalProcess: MmppProcess | undefined;
    if (!isAbsent(c.arrivalProcess)) {
      const proc = validateArrivalProcess(c.arrivalProcess, `${path}.arrivalProcess`).process;
      arrivalProcess = proc;
      arrivalRate = underField(path, () => meanRateFor(c.arrivalRate, proc, POISSON_RATE.max));
    } else {
      arrivalRate = readNumber(c, FLEET_CLASS, 'arrivalRate', path, POISSON_RATE);
    }
    return {
      name,
      arrivalRate,
      ...(arrivalProcess ? { arrivalProcess } : {}),
      latencyTarget: optionalNumber(c, FLEET_CLASS, 'latencyTarget', path) ?? null,
      weight: readNumber(c, FLEET_CLASS, 'weight', path),
    };
  });
  const names = classes.map((c) => c.name);
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i) throw new ScenarioError(`classes[${i}].name`, `repeats the name ${JSON.stringify(n)}`);
  });

  // An explicit null objective is refused (only a missing one takes the defaults).
  const objective = input.objective === undefined ? {} : checkObject(input.objective, 'objective', FLEET_OBJECTIVE);
  const latencyWeight = readNumber(objective, FLEET_OBJECTIVE, 'latencyWeight', 'objective');
  const powerWeight = readNumber(objective, FLEET_OBJECTIVE, 'powerWeight', 'objective');
  if (latencyWeight === 0 && powerWeight === 0) throw new ScenarioError('objective', 'latencyWeight and powerWeight are both 0: at least one must be > 0');

  const batching = readEnum(input, FLEET, 'batching', '');

  let total = 0;
  const kinds: AcceleratorKind[] = readList(input, FLEET, 'accelerators', '').map((item, k) => {
    const path = `accelerators[${k}]`;
    const raw = checkObject(item, path, ACCELERATOR);
    const name = readString(raw, ACCELERATOR, 'name', path);
    const count = readNumber(raw, ACCELERATOR, 'count', path);
    total += count;
    const maxBatchSize = readNumber(raw, ACCELERATOR, 'maxBatchSize', path);
    const policy = readString(raw, ACCELERATOR, 'policy', path);
    const st = raw.serviceTime;
    if (!isObj(st)) throw new ScenarioError(`${path}.serviceTime`, 'must be an object keyed by class name');
    rejectUnknown(st, `${path}.serviceTime`, names);
    const serviceSpecs = names.map((n) => {
      const spec = st[n];
      if (!isObj(spec)) throw new ScenarioError(`${path}.serviceTime.${n}`, 'is required (every class needs a service-time model on every accelerator kind)');
      return spec as ServiceTimeSpec;
    });
    if (!isObj(raw.power)) throw new ScenarioError(`${path}.power`, 'is required');
    const powerSpec = raw.power as PowerSpec;
    // Each pair must be a valid single-server scenario; the rate is a placeholder far below capacity.
    const pairs = serviceSpecs.map((_, c) => {
      try {
        return validateScenario(pairScenario({ maxBatchSize, serviceSpecs, powerSpec }, c, 1e-6, 1, 0)).params;
      } catch (e) {
        if (e instanceof ScenarioError) {
          const f = e.field.startsWith('serviceTime') ? `${path}.serviceTime.${names[c]}${e.field.slice('serviceTime'.length)}` : `${path}.${e.field}`;
          throw new ScenarioError(f, e.reason);
        }
        throw e;
      }
    });
    return { name, count, maxBatchSize, policy, pairs, serviceSpecs, powerSpec, busyPower: pairs[0].busyPower, idlePower: pairs[0].idlePower };
  });
  if (total > FLEET_LIMITS.maxAccelerators) throw new ScenarioError('accelerators', `hold ${total} accelerators in all, at most ${FLEET_LIMITS.maxAccelerators} are allowed`);

  // Necessary condition for stability: the work of all classes, each at its cheapest per-request
  // cost (full batches on its fastest kind), must fit in the fleet's time.
  let work = 0;
  classes.forEach((cl, c) => {
    work += cl.arrivalRate * Math.min(...kinds.map((k) => k.pairs[c].meanService[k.maxBatchSize] / k.maxBatchSize));
  });
  if (!(work < total)) {
    throw new ScenarioError('classes', `need ${work.toPrecision(4)} accelerator-seconds per second even in full batches on the fastest kind, but the fleet has ${total} accelerators: no router can keep the queues stable`);
  }
  return { classes, kinds, batching, latencyWeight, powerWeight, accelerators: total };
}

/** Kind index of each accelerator, in fleet order (group 0's accelerators first). */
export function acceleratorKinds(f: FleetParams): Int32Array {
  const out = new Int32Array(f.accelerators);
  let a = 0;
  f.kinds.forEach((k, i) => {
    for (let j = 0; j < k.count; j++) out[a++] = i;
  });
  return out;
}
