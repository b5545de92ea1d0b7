/**
 * The fleet scenario: several accelerator groups serving several request classes. Each
 * (accelerator kind, class) pair is a single-server scenario of spec §1 (its own service
 * times, the kind's power model), so validation reuses validateScenario for every pair and
 * the exact solver can be run on any pair at any arrival rate (segregation planning).
 */
import { ScenarioError } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import type { MmppProcess } from '../model/mmpp/process.js';
import type { ArrivalProcessSpec } from '../model/mmpp/spec.js';
import { meanRateFor, validateArrivalProcess } from '../model/mmpp/validate.js';
import type { ModelParams, PowerSpec, Scenario, ServiceTimeSpec } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';

/** How an accelerator forms batches from several classes. */
export type BatchingMode = 'PER_CLASS' | 'MIXED';

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

export const FLEET_LIMITS = { maxClasses: 16, maxAccelerators: 256, maxKinds: 16 } as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function known(o: Obj, path: string, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) throw new ScenarioError(path ? `${path}.${k}` : k, `is not a known field (expected one of: ${allowed.join(', ')})`);
  }
}

function num(o: Obj, key: string, path: string, rule: { above?: number; min?: number; max?: number; integer?: boolean }, fallback?: number): number {
  const v = o[key];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new ScenarioError(path, 'is required');
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ScenarioError(path, `must be a finite number (got ${JSON.stringify(v)})`);
  if (rule.integer && !Number.isInteger(v)) throw new ScenarioError(path, `must be an integer (got ${v})`);
  if (rule.above !== undefined && !(v > rule.above)) throw new ScenarioError(path, `must be > ${rule.above} (got ${v})`);
  if (rule.min !== undefined && v < rule.min) throw new ScenarioError(path, `must be ≥ ${rule.min} (got ${v})`);
  if (rule.max !== undefined && v > rule.max) throw new ScenarioError(path, `must be ≤ ${rule.max} (got ${v})`);
  return v;
}

function str(o: Obj, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v.trim() === '') throw new ScenarioError(path, `must be a non-empty string (got ${JSON.stringify(v)})`);
  return v;
}

function list(o: Obj, key: string, path: string, max: number): unknown[] {
  const v = o[key];
  if (!Array.isArray(v) || v.length === 0) throw new ScenarioError(path, 'must be a non-empty array');
  if (v.length > max) throw new ScenarioError(path, `has ${v.length} entries, at most ${max} are allowed`);
  return v;
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
export function validateFleet(input: unknown): FleetParams {
  if (!isObj(input)) throw new ScenarioError('fleet', 'must be a JSON object');
  known(input, '', ['classes', 'accelerators', 'batching', 'objective']);

  const classes: FleetClass[] = list(input, 'classes', 'classes', FLEET_LIMITS.maxClasses).map((raw, i) => {
    const path = `classes[${i}]`;
    if (!isObj(raw)) throw new ScenarioError(path, 'must be an object');
    known(raw, path, ['name', 'arrivalRate', 'arrivalProcess', 'latencyTarget', 'weight']);
    const t = raw.latencyTarget;
    const name = str(raw, 'name', `${path}.name`);
    let arrivalRate: number;
    let arrivalProcess: MmppProcess | undefined;
    if (raw.arrivalProcess !== undefined && raw.arrivalProcess !== null) {
      arrivalProcess = validateArrivalProcess(raw.arrivalProcess, `${path}.arrivalProcess`).process;
      try {
        arrivalRate = meanRateFor(raw.arrivalRate, arrivalProcess, Math.min(1e9, LIMITS.maxArrivalRate));
      } catch (e) {
        if (e instanceof ScenarioError) throw new ScenarioError(`${path}.${e.field}`, e.reason);
        throw e;
      }
    } else {
      arrivalRate = num(raw, 'arrivalRate', `${path}.arrivalRate`, { above: 0, max: 1e9 });
    }
    return {
      name,
      arrivalRate,
      ...(arrivalProcess ? { arrivalProcess } : {}),
      latencyTarget: t === undefined || t === null ? null : num(raw, 'latencyTarget', `${path}.latencyTarget`, { above: 0, max: 1e6 }),
      weight: num(raw, 'weight', `${path}.weight`, { min: 0, max: 1e12 }, 1),
    };
  });
  const names = classes.map((c) => c.name);
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i) throw new ScenarioError(`classes[${i}].name`, `repeats the name ${JSON.stringify(n)}`);
  });

  const objective = input.objective === undefined ? {} : input.objective;
  if (!isObj(objective)) throw new ScenarioError('objective', 'must be an object');
  known(objective, 'objective', ['latencyWeight', 'powerWeight']);
  const latencyWeight = num(objective, 'latencyWeight', 'objective.latencyWeight', { min: 0, max: 1e12 }, 1);
  const powerWeight = num(objective, 'powerWeight', 'objective.powerWeight', { min: 0, max: 1e12 }, 0);
  if (latencyWeight === 0 && powerWeight === 0) throw new ScenarioError('objective', 'latencyWeight and powerWeight are both 0: at least one must be > 0');

  const batching = input.batching ?? 'PER_CLASS';
  if (batching !== 'PER_CLASS' && batching !== 'MIXED') throw new ScenarioError('batching', `must be PER_CLASS or MIXED (got ${JSON.stringify(batching)})`);

  let total = 0;
  const kinds: AcceleratorKind[] = list(input, 'accelerators', 'accelerators', FLEET_LIMITS.maxKinds).map((raw, k) => {
    const path = `accelerators[${k}]`;
    if (!isObj(raw)) throw new ScenarioError(path, 'must be an object');
    known(raw, path, ['name', 'count', 'maxBatchSize', 'serviceTime', 'power', 'policy']);
    const name = str(raw, 'name', `${path}.name`);
    const count = num(raw, 'count', `${path}.count`, { min: 1, max: FLEET_LIMITS.maxAccelerators, integer: true });
    total += count;
    const maxBatchSize = num(raw, 'maxBatchSize', `${path}.maxBatchSize`, { min: 1, max: 1024, integer: true });
    const policy = raw.policy === undefined ? 'greedy' : str(raw, 'policy', `${path}.policy`);
    const st = raw.serviceTime;
    if (!isObj(st)) throw new ScenarioError(`${path}.serviceTime`, 'must be an object keyed by class name');
    known(st, `${path}.serviceTime`, names);
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
