import { LimitError, ScenarioError } from '../model/errors.js';
import type { Scenario, ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import type { Policy } from '../policy/policy.js';
import { SIM_LIMITS } from './limits.js';
import { buildSimPolicy, parseSimPolicySpec, type SimPolicySpec } from './policySpec.js';
import type { SimulationResult } from './result.js';
import { simulate } from './simulate.js';
import { checkNumber, countValue, isAbsent, isObj, knownFields, underField } from '../validate/index.js';

/** The JSON form of a Simulate call (proto3 JSON of `batchwise.v1.SimulateRequest`). */
export interface SimulateRequest {
  readonly scenario: Scenario;
  /** Policy spec (see parseSimPolicySpec); default `optimal`. */
  readonly policy?: string;
  /** Requests to measure; 0 or absent = default (10⁶, or the trace less warm-up). */
  readonly requests?: number | string;
  /** Absent = 1. */
  readonly seed?: number | string;
  /** 0 or absent = default. */
  readonly warmupRequests?: number | string;
  /** 0 or absent = default (32). */
  readonly confidenceBatches?: number | string;
  /** Replay these arrival times (seconds, non-decreasing) instead of Poisson arrivals. */
  readonly arrivalTimestamps?: readonly number[];
}

/** A validated Simulate request: plain data (typed arrays included), so it can cross to a worker thread. */
export interface SimulateCall {
  readonly scenario: ValidatedScenario;
  readonly spec: SimPolicySpec;
  readonly requests?: number;
  readonly seed?: number;
  readonly warmup?: number;
  readonly ciBatches?: number;
  readonly trace?: Float64Array;
}

export interface SimulateDeps {
  /** Solves a scenario for its optimal policy; needed only for policy `optimal`. */
  readonly optimalPolicy?: (scenario: ValidatedScenario, signal?: AbortSignal) => Promise<Policy>;
  readonly signal?: AbortSignal;
  readonly onProgress?: (measured: number, total: number) => void;
}

const KNOWN = ['scenario', 'policy', 'requests', 'seed', 'warmupRequests', 'confidenceBatches', 'arrivalTimestamps'];

/**
 * The Simulate RPC as a function of plain JSON: validates the request (each error a
 * ScenarioError naming its field), resolves `optimal` through the injected solver (src/sim
 * does not import src/solve), simulates and returns the result object. No I/O.
 */
export async function simulateRequest(input: unknown, deps: SimulateDeps = {}): Promise<SimulationResult> {
  const call = parseSimulateRequest(input);
  let optimal: Policy | undefined;
  if (call.spec.kind === 'optimal') {
    if (!deps.optimalPolicy) throw new ScenarioError('policy', 'optimal is not available here (no solver)');
    optimal = await deps.optimalPolicy(call.scenario, deps.signal);
  }
  return runSimulateCall(call, optimal, deps);
}

/**
 * Validates a Simulate request. `parseScenario` turns the request's scenario into a
 * validated one (default: validateScenario; the service passes its proto conversion and
 * limits); its errors come back with paths under `scenario.`.
 */
export function parseSimulateRequest(
  input: unknown,
  parseScenario: (raw: unknown) => ValidatedScenario = validateScenario,
): SimulateCall {
  if (!isObj(input)) throw new ScenarioError('request', 'must be a JSON object');
  const req = knownFields(input, '', KNOWN);
  if (isAbsent(req.scenario)) throw new ScenarioError('scenario', 'is required');
  const raw = req.scenario;
  const scenario = underField('scenario', () => parseScenario(raw));
  const policyText = req.policy === undefined || req.policy === null || req.policy === '' ? 'optimal' : req.policy;
  if (typeof policyText !== 'string') throw new ScenarioError('policy', 'must be a string such as "optimal" or "triton:delay=2ms"');
  const requests = countValue(req.requests, 'requests');
  if (requests !== undefined && requests > SIM_LIMITS.maxRequests) {
    throw new LimitError('requests', `must be ≤ ${SIM_LIMITS.maxRequests} per simulation (got ${requests})`);
  }
  return {
    scenario,
    spec: parseSimPolicySpec(policyText, scenario.params.maxBatchSize),
    requests,
    seed: countValue(req.seed, 'seed', true),
    warmup: countValue(req.warmupRequests, 'warmupRequests'),
    ciBatches: countValue(req.confidenceBatches, 'confidenceBatches'),
    trace: timestamps(req.arrivalTimestamps),
  };
}

/** Runs a validated call; `optimal` is the solved policy when the spec is `optimal`. */
export function runSimulateCall(
  call: SimulateCall,
  optimal: Policy | undefined,
  opts: { signal?: AbortSignal; onProgress?: (measured: number, total: number) => void } = {},
): SimulationResult {
  const params = call.scenario.params;
  return simulate(params, buildSimPolicy(call.spec, params, optimal), {
    requests: call.requests,
    seed: call.seed,
    warmup: call.warmup,
    ciBatches: call.ciBatches,
    trace: call.trace,
    signal: opts.signal,
    onProgress: opts.onProgress,
  });
}

function timestamps(v: unknown): Float64Array | undefined {
  if (isAbsent(v)) return undefined;
  if (!Array.isArray(v)) throw new ScenarioError('arrivalTimestamps', 'must be an array of numbers (seconds)');
  if (v.length === 0) return undefined;
  if (v.length > SIM_LIMITS.maxTraceArrivals) {
    throw new LimitError('arrivalTimestamps', `holds ${v.length} entries; at most ${SIM_LIMITS.maxTraceArrivals}`);
  }
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const t = checkNumber(v[i], `arrivalTimestamps[${i}]`, {}, 'json');
    if (i > 0 && t < out[i - 1]) throw new ScenarioError(`arrivalTimestamps[${i}]`, `is earlier than the one before (${t} < ${out[i - 1]})`);
    out[i] = t;
  }
  if (out.length < 2) throw new ScenarioError('arrivalTimestamps', 'needs at least 2 timestamps');
  return out;
}
