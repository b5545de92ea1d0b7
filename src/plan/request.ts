import { LimitError, ScenarioError } from '../model/errors.js';
import type { ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import { describePolicy, type PolicyDescription } from '../solve/result.js';
import { SIM_LIMITS } from '../sim/limits.js';
import { planScenario, type PlanResult, type PlanTarget } from './constrained.js';
import { exportPolicy, type ExportResult } from './export/exportPolicy.js';
import { EXPORT_TARGETS, type ExportTarget } from './export/targets.js';
import { sizeFleet, type FleetResult } from './fleet.js';
import { computeFrontier, type Frontier } from './frontier.js';
import type { PowerBound } from './powerBound.js';
import { checkPercentileLaw } from './percentileFamily.js';
import { missingTarget, parsePercentileTarget, runPercentileCall, type PercentilePlanMessage, type PercentileTargetCall } from './percentileRequest.js';
import { countValue, isAbsent, isObj, knownFields, underField } from '../validate/index.js';

/**
 * The planning RPCs (Plan, Frontier, Fleet, Export) as functions of plain JSON, in two
 * halves like src/sim/request.ts: `parsePlanningRequest` validates (every error a
 * ScenarioError naming its field; the scenario's under `scenario.`) into a call made of
 * plain data that can cross to a worker thread, and `runPlanningCall` answers it with the
 * response message (proto3 JSON names). Units are SI: seconds, watts, requests/s.
 */
export type PlanningKind = 'plan' | 'frontier' | 'fleet' | 'export';

export type PlanningCall =
  | { readonly kind: 'plan'; readonly scenario: ValidatedScenario; readonly target: PlanTarget | PercentileTargetCall }
  | { readonly kind: 'frontier'; readonly scenario: ValidatedScenario; readonly maxLatency?: number; readonly resolution?: number }
  | {
      readonly kind: 'fleet';
      readonly scenario: ValidatedScenario;
      readonly totalRate: number;
      readonly latencyTarget: number;
      readonly p99Target?: number;
      readonly maxAccelerators?: number;
      readonly requests?: number;
      readonly seed?: number;
    }
  | {
      readonly kind: 'export';
      readonly scenario: ValidatedScenario;
      readonly target: ExportTarget;
      readonly requests?: number;
      readonly tuningRequests?: number;
      readonly seed?: number;
      readonly modelName?: string;
    };

/** A frontier vertex as a message: figures, compact policy, weights (W per s of latency). */
export interface FrontierVertexMessage {
  readonly meanResponseTime: number;
  readonly meanPower: number;
  readonly throughput: number;
  readonly utilization: number;
  readonly meanBatchSize: number;
  readonly policy: PolicyDescription;
  readonly solvedAt: number;
  readonly weightLow: number;
  readonly weightHigh: number;
}

export interface FrontierMessage {
  readonly vertices: FrontierVertexMessage[];
  readonly breakpoints: number[];
  readonly powerBound: PowerBound;
  readonly complete: boolean;
  readonly maxLatency: number;
  readonly resolution: number;
  readonly solves: number;
}

export interface PlanningResponses {
  /** PlanResult for a mean target or a power budget; for a percentile target, PlanResult's target, status and percentile only. */
  plan: PlanResult | PercentilePlanMessage;
  frontier: FrontierMessage;
  fleet: FleetResult;
  export: ExportResult;
}
export type PlanningResponse = PlanningResponses[PlanningKind];

/** Most accelerators a Fleet call may consider. */
export const MAX_FLEET = 4096;

const KNOWN: Readonly<Record<PlanningKind, readonly string[]>> = {
  plan: ['scenario', 'latencyTarget', 'powerBudget', 'p95Target', 'p99Target', 'p999Target', 'objective'],
  frontier: ['scenario', 'maxLatency', 'resolution'],
  fleet: ['scenario', 'totalRate', 'latencyTarget', 'p99Target', 'maxAccelerators', 'requests', 'seed'],
  export: ['scenario', 'target', 'requests', 'tuningRequests', 'seed', 'modelName'],
};

export function parsePlanningRequest(
  kind: PlanningKind,
  input: unknown,
  parseScenario: (raw: unknown) => ValidatedScenario = validateScenario,
): PlanningCall {
  if (!isObj(input)) throw new ScenarioError('request', 'must be a JSON object');
  const req = knownFields(input, '', KNOWN[kind]);
  if (isAbsent(req.scenario)) throw new ScenarioError('scenario', 'is required');
  const raw = req.scenario;
  const scenario = underField('scenario', () => parseScenario(raw));
  switch (kind) {
    case 'plan': {
      const latency = positive(req.latencyTarget, 'latencyTarget');
      const power = positive(req.powerBudget, 'powerBudget');
      const percentile = parsePercentileTarget(req, latency !== undefined || power !== undefined);
      if (percentile) {
        // A scenario without the exact law is refused here, on its field under `scenario`.
        underField('scenario', () => checkPercentileLaw(scenario.params));
        return { kind, scenario, target: percentile };
      }
      if ((latency === undefined) === (power === undefined)) throw missingTarget();
      return { kind, scenario, target: latency !== undefined ? { kind: 'latency', seconds: latency } : { kind: 'power', watts: power! } };
    }
    case 'frontier': {
      const resolution = positive(req.resolution, 'resolution');
      if (resolution !== undefined && !(resolution >= 1e-12 && resolution <= 1e-2)) {
        throw new ScenarioError('resolution', `must be in [1e-12, 1e-2] or 0 for the default (got ${resolution})`);
      }
      return { kind, scenario, maxLatency: positive(req.maxLatency, 'maxLatency'), resolution };
    }
    case 'fleet': {
      const maxAccelerators = countValue(req.maxAccelerators, 'maxAccelerators');
      if (maxAccelerators !== undefined && maxAccelerators > MAX_FLEET) throw new LimitError('maxAccelerators', `must be ≤ ${MAX_FLEET} (got ${maxAccelerators})`);
      return {
        kind,
        scenario,
        totalRate: required(positive(req.totalRate, 'totalRate'), 'totalRate', 'requests/s'),
        latencyTarget: required(positive(req.latencyTarget, 'latencyTarget'), 'latencyTarget', 'seconds'),
        p99Target: positive(req.p99Target, 'p99Target'),
        maxAccelerators,
        requests: simRequests(req.requests, 'requests'),
        seed: countValue(req.seed, 'seed', true),
      };
    }
    case 'export': {
      const target = req.target;
      if (typeof target !== 'string' || !(EXPORT_TARGETS as readonly string[]).includes(target)) {
        throw new ScenarioError('target', `must be one of ${EXPORT_TARGETS.join(', ')} (got ${JSON.stringify(target)})`);
      }
      const modelName = req.modelName === undefined || req.modelName === null || req.modelName === '' ? undefined : req.modelName;
      if (modelName !== undefined && (typeof modelName !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(modelName))) {
        throw new ScenarioError('modelName', 'must be 1–64 letters, digits, _ . or -');
      }
      return {
        kind,
        scenario,
        target: target as ExportTarget,
        requests: simRequests(req.requests, 'requests'),
        tuningRequests: simRequests(req.tuningRequests, 'tuningRequests'),
        seed: countValue(req.seed, 'seed', true),
        modelName,
      };
    }
  }
}

export async function runPlanningCall(call: PlanningCall, opts: { signal?: AbortSignal } = {}): Promise<PlanningResponse> {
  const signal = opts.signal;
  switch (call.kind) {
    case 'plan':
      if (call.target.kind === 'percentile') return runPercentileCall(call.scenario, call.target, signal);
      return planScenario(call.scenario, call.target, { signal, targetField: call.target.kind === 'latency' ? 'latencyTarget' : 'powerBudget' });
    case 'frontier':
      return frontierMessage(await computeFrontier(call.scenario, { maxLatency: call.maxLatency, resolution: call.resolution, signal }), call.scenario);
    case 'fleet':
      return sizeFleet(call.scenario, {
        totalRate: call.totalRate,
        latencyTarget: call.latencyTarget,
        p99Target: call.p99Target,
        maxAccelerators: call.maxAccelerators,
        simulation: { requests: call.requests, seed: call.seed },
        signal,
      });
    case 'export':
      return exportPolicy(call.scenario, call.target, {
        requests: call.requests,
        tuningRequests: call.tuningRequests,
        seed: call.seed,
        modelName: call.modelName,
        signal,
      });
  }
}

/** Both halves at once: the RPC as a pure function of its JSON request. */
export async function planningRequest<K extends PlanningKind>(kind: K, input: unknown, opts: { signal?: AbortSignal } = {}): Promise<PlanningResponses[K]> {
  return (await runPlanningCall(parsePlanningRequest(kind, input), opts)) as PlanningResponses[K];
}

export function frontierMessage(f: Frontier, scenario: ValidatedScenario): FrontierMessage {
  return {
    vertices: f.vertices.map((v) => ({
      meanResponseTime: v.figures.meanResponseTime,
      meanPower: v.figures.meanPower,
      throughput: v.figures.throughput,
      utilization: v.figures.utilization,
      meanBatchSize: v.figures.meanBatchSize,
      policy: describePolicy(scenario.params, v.policy),
      solvedAt: v.solvedAt,
      weightLow: v.weightLow,
      weightHigh: v.weightHigh,
    })),
    breakpoints: f.breakpoints,
    powerBound: f.powerBound,
    complete: f.complete,
    maxLatency: f.maxLatency,
    resolution: f.resolution,
    solves: f.solves,
  };
}

/** A positive finite number; absent or 0 = not given (proto3 cannot tell 0 from unset). */
function positive(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null || v === 0) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ScenarioError(field, `must be a positive number (got ${JSON.stringify(v)})`);
  return v;
}

function required(v: number | undefined, field: string, unit: string): number {
  if (v === undefined) throw new ScenarioError(field, `is required (${unit})`);
  return v;
}

function simRequests(v: unknown, field: string): number | undefined {
  const n = countValue(v, field);
  if (n !== undefined && n > SIM_LIMITS.maxRequests) throw new LimitError(field, `must be ≤ ${SIM_LIMITS.maxRequests} per simulation (got ${n})`);
  return n;
}
