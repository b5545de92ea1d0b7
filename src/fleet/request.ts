/**
 * The FleetSimulate and FleetPlan RPCs as functions of plain JSON, in two halves like
 * src/plan/request.ts: `parseFleet…Request` validates (every error a ScenarioError naming its
 * field; the fleet's fields under `fleet.`, e.g. `fleet.classes[1].arrivalProcess.generator`)
 * into a call of plain data that can cross to a worker thread, and `runFleet…Call` answers it
 * with the library's results (what `batchwise fleet simulate|plan --json` prints).
 */
import { LinearRouter, type RouterWeights } from './learn/linearRouter.js';
import { LimitError, ScenarioError } from '../model/errors.js';
import { SIM_LIMITS } from '../sim/limits.js';
import { checkNumber, countValue, isAbsent, isObj, knownFields, literal, reroot, underField } from '../validate/index.js';
import { parseRouterName } from './routers.js';
import { runFleet, type FleetRun } from './run.js';
import { FLEET_LIMITS, validateFleet, type FleetParams } from './scenario.js';
import { planSegregation, type SegregationPlan } from './segregation.js';
import { leastAccelerators } from './sizing.js';

export interface FleetSimulateCall {
  readonly fleet: FleetParams;
  readonly router: string;
  readonly requests?: number;
  readonly seed?: number;
  readonly warmup?: number;
  readonly weights?: RouterWeights;
}

export interface FleetPlanCall {
  readonly fleet: FleetParams;
  /** Size one group for the class targets (`fleet plan --least`). */
  readonly least?: { readonly kind: number; readonly maxAccelerators: number };
}

/** FleetPlan's answer: the plan, and with `least` the sized group. */
export interface FleetPlanAnswer {
  readonly plan: SegregationPlan;
  readonly kind?: string;
  readonly count?: number;
  readonly rejected?: readonly number[];
}

/** Default and largest count `least` tries for the sized group. */
export const DEFAULT_LEAST_MAX = 64;

/** Validates the `fleet` field; errors re-rooted under `fleet.`. */
export function parseFleetField(raw: unknown): FleetParams {
  if (isAbsent(raw)) throw new ScenarioError('fleet', 'is required');
  return underField('fleet', () => validateFleet(raw), (field) => field === 'fleet');
}

export function parseFleetSimulateRequest(request: unknown, parseFleet: (raw: unknown) => FleetParams = parseFleetField): FleetSimulateCall {
  if (!isObj(request)) throw new ScenarioError('request', 'must be a JSON object');
  const input = knownFields(request, '', ['fleet', 'router', 'requests', 'seed', 'warmupRequests', 'weights']);
  const fleet = parseFleet(input.fleet);
  const router = isAbsent(input.router) || input.router === '' ? 'jsq' : input.router;
  if (typeof router !== 'string') throw new ScenarioError('router', `must be a string (got ${literal(router)})`);
  const name = parseRouterName(router);
  let weights: RouterWeights | undefined;
  if (!isAbsent(input.weights)) {
    if (name !== 'learned') throw new ScenarioError('weights', `are for router learned (router is ${name})`);
    weights = routerWeights(input.weights, fleet);
  }
  if (name === 'learned' && !weights) throw new ScenarioError('weights', 'are required for router learned (batchwise train … --out POLICY.json writes them)');
  if (name === 'segregation' && fleet.batching === 'MIXED') throw new ScenarioError('fleet.batching', 'segregation dedicates accelerators to classes: use PER_CLASS batching');
  const requests = countValue(input.requests, 'requests');
  if (requests !== undefined && requests > SIM_LIMITS.maxRequests) throw new LimitError('requests', `must be ≤ ${SIM_LIMITS.maxRequests} per simulation (got ${requests})`);
  const warmup = countValue(input.warmupRequests, 'warmupRequests');
  if (warmup !== undefined && warmup > SIM_LIMITS.maxRequests) throw new LimitError('warmupRequests', `must be ≤ ${SIM_LIMITS.maxRequests} (got ${warmup})`);
  return { fleet, router: name, requests, seed: countValue(input.seed, 'seed', true), warmup, weights };
}

export function parseFleetPlanRequest(request: unknown, parseFleet: (raw: unknown) => FleetParams = parseFleetField): FleetPlanCall {
  if (!isObj(request)) throw new ScenarioError('request', 'must be a JSON object');
  const input = knownFields(request, '', ['fleet', 'least', 'kind', 'maxAccelerators']);
  const fleet = parseFleet(input.fleet);
  if (fleet.batching === 'MIXED') throw new ScenarioError('fleet.batching', 'segregation dedicates accelerators to classes: use PER_CLASS batching');
  if (!isAbsent(input.least) && typeof input.least !== 'boolean') throw new ScenarioError('least', `must be a boolean (got ${literal(input.least)})`);
  const kindName = isAbsent(input.kind) || input.kind === '' ? undefined : input.kind;
  const max = countValue(input.maxAccelerators, 'maxAccelerators');
  if (input.least !== true) {
    if (kindName !== undefined) throw new ScenarioError('kind', 'applies only with least = true');
    if (max !== undefined) throw new ScenarioError('maxAccelerators', 'applies only with least = true');
    return { fleet };
  }
  let kind = 0;
  if (kindName !== undefined) {
    kind = fleet.kinds.findIndex((k) => k.name === kindName);
    if (kind < 0) throw new ScenarioError('kind', `names no accelerator group (groups: ${fleet.kinds.map((k) => k.name).join(', ')})`);
  }
  if (max !== undefined && max > FLEET_LIMITS.maxAccelerators) throw new LimitError('maxAccelerators', `must be ≤ ${FLEET_LIMITS.maxAccelerators} (got ${max})`);
  if (!fleet.classes.some((c) => c.latencyTarget !== null)) throw new ScenarioError('fleet.classes', 'no class has a latencyTarget: there is nothing to size for');
  return { fleet, least: { kind, maxAccelerators: max ?? DEFAULT_LEAST_MAX } };
}

export async function runFleetSimulateCall(call: FleetSimulateCall, opts: { signal?: AbortSignal } = {}): Promise<FleetRun> {
  try {
    return await runFleet(call.fleet, call.router, { requests: call.requests, seed: call.seed, warmup: call.warmup, learned: call.weights, signal: opts.signal });
  } catch (e) {
    throw underFleet(e);
  }
}

export async function runFleetPlanCall(call: FleetPlanCall, opts: { signal?: AbortSignal } = {}): Promise<FleetPlanAnswer> {
  try {
    return await planCall(call, opts.signal);
  } catch (e) {
    throw underFleet(e);
  }
}

/** Errors the library names by a fleet field (`accelerators`, `classes`, …) re-rooted under `fleet.`. */
function underFleet(e: unknown): unknown {
  const named = (e instanceof ScenarioError || e instanceof LimitError) && /^(classes|accelerators|batching|objective)(\.|\[|$)/.test(e.field);
  return named ? reroot(e, 'fleet') : e;
}

async function planCall(call: FleetPlanCall, signal?: AbortSignal): Promise<FleetPlanAnswer> {
  const f = call.fleet;
  const opts = { signal };
  if (call.least) {
    const r = await leastAccelerators(f, call.least.kind, call.least.maxAccelerators, opts.signal);
    if (r === null) throw new ScenarioError('classes', `no count of ${f.kinds[call.least.kind].name} up to ${call.least.maxAccelerators} meets every class target`);
    return { plan: r.plan, kind: r.kind, count: r.count, rejected: r.rejected };
  }
  const plan = await planSegregation(f, { signal: opts.signal });
  if (plan === null) throw new ScenarioError('accelerators', 'no segregation of this fleet keeps every class stable');
  return { plan };
}

/** The trained router's weights (the file `batchwise train --out` writes), checked against the fleet. */
function routerWeights(raw: unknown, f: FleetParams): RouterWeights {
  if (!isObj(raw)) throw new ScenarioError('weights', 'must be an object');
  const theta = raw.theta;
  if (!Array.isArray(theta) || theta.length !== f.classes.length) {
    throw new ScenarioError('weights.theta', `must have one row per class (${f.classes.length}; got ${Array.isArray(theta) ? theta.length : literal(theta)})`);
  }
  const rows = theta.map((row, c) => {
    if (!Array.isArray(row)) throw new ScenarioError(`weights.theta[${c}]`, 'must be an array of numbers');
    row.forEach((x, i) => checkNumber(x, `weights.theta[${c}][${i}]`, {}, 'json'));
    return row as number[];
  });
  const tau = raw.tau;
  if (typeof tau !== 'number' || !(tau > 0) || !Number.isFinite(tau)) throw new ScenarioError('weights.tau', `must be a positive number (got ${literal(tau)})`);
  const w = {
    format: (isAbsent(raw.format) || raw.format === '' ? 'batchwise.linear-router.v1' : raw.format) as RouterWeights['format'],
    accelerators: typeof raw.accelerators === 'number' ? raw.accelerators : f.accelerators,
    classes: typeof raw.classes === 'number' ? raw.classes : f.classes.length,
    theta: rows,
    tau,
  };
  LinearRouter.fromWeights(f, w, 1); // checks format, sizes and row lengths now, with the field named
  return w;
}
