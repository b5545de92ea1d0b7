import { LimitError, ScenarioError } from '../model/errors.js';
import type { ModelParams } from '../model/scenario.js';
import { checkPolicy, formatPolicy, phasesOf, type Policy } from '../policy/policy.js';
import { ArrivalSource, type ArrivalStream } from './arrivals.js';
import { MmppArrivals, MmppTablePolicy } from './mmpp.js';
import { runEngine, type EngineSystem } from './engine/index.js';
import { TablePolicy } from './policies/table.js';
import type { SimPolicy } from './policies/types.js';
import { summarize, type DetailedSimulation, type SimulationResult } from './result.js';
import { defaultWarmup, SIM_DEFAULTS, SIM_LIMITS } from './limits.js';

export interface SimulateOptions {
  /** Requests to measure (default 10⁶; with a trace: the trace less warm-up at both ends). */
  readonly requests?: number;
  /** Seed of the arrival and service streams (default 1). */
  readonly seed?: number;
  /** Requests served before measuring (default max(1000, 1 % of requests); with a trace 1 % of it). */
  readonly warmup?: number;
  /** Batch-means groups for the confidence intervals (default 32). */
  readonly ciBatches?: number;
  /** Replay these arrival times (seconds, non-decreasing) instead of Poisson arrivals. */
  readonly trace?: Float64Array;
  readonly signal?: AbortSignal;
  readonly onProgress?: (measured: number, total: number) => void;
}

/**
 * Simulates a policy on a scenario (docs/model.md §1) and reports means with 95 % batch-means
 * confidence intervals, percentiles, power, utilisation and batch sizes. Deterministic:
 * the same inputs and seed give the same result, bit for bit.
 */
export function simulate(params: ModelParams, policy: SimPolicy | Policy, opts: SimulateOptions = {}): SimulationResult {
  return simulateDetailed(params, policy, opts).result;
}

export type { DetailedSimulation } from './result.js';

export function simulateDetailed(params: ModelParams, policy: SimPolicy | Policy, opts: SimulateOptions = {}): DetailedSimulation {
  const sim = isSimPolicy(policy) ? policy : tablePolicy(policy, params.maxBatchSize);
  const seed = opts.seed ?? SIM_DEFAULTS.seed;
  checkInteger(seed, 'seed', 0, Number.MAX_SAFE_INTEGER);
  const ciBatches = opts.ciBatches ?? SIM_DEFAULTS.ciBatches;
  checkInteger(ciBatches, 'confidenceBatches', 2, SIM_LIMITS.maxCiBatches);

  let requests: number;
  let warmup: number;
  let arrivals: ArrivalStream;
  if (opts.trace) {
    const n = opts.trace.length;
    warmup = opts.warmup ?? Math.floor(n * SIM_DEFAULTS.warmupShare);
    checkInteger(warmup, 'warmupRequests', 0, Math.max(0, n - 1));
    requests = opts.requests ?? n - 2 * warmup;
    if (requests < 1) throw new ScenarioError('trace', `has ${n} arrivals: too few for a warm-up of ${warmup} requests at both ends`);
    arrivals = ArrivalSource.trace(opts.trace);
  } else {
    requests = opts.requests ?? SIM_DEFAULTS.requests;
    checkInteger(requests, 'requests', 1, SIM_LIMITS.maxRequests);
    warmup = opts.warmup ?? defaultWarmup(requests);
    checkInteger(warmup, 'warmupRequests', 0, SIM_LIMITS.maxRequests);
    assertStable(params, sim);
    // MMPP arrivals (docs/model.md §7) when the scenario has them; arrivalRate is then their mean rate.
    arrivals = params.arrivalProcess ? new MmppArrivals(params.arrivalProcess, seed) : ArrivalSource.poisson(params.arrivalRate, seed);
  }
  checkInteger(requests, 'requests', 1, SIM_LIMITS.maxRequests);

  const out = runEngine(singleServer(params), [[sim]], [arrivals], null, {
    requests,
    warmup,
    ciBatches,
    seed,
    maxQueued: SIM_LIMITS.maxQueued,
    overflow: (limit, now) =>
      new LimitError('policy', `the queue passed ${limit} waiting requests at t = ${now} s: the policy cannot keep up with the arrivals (unstable)`),
    signal: opts.signal,
    onProgress: opts.onProgress,
  });
  if (out.measured === 0) {
    throw new ScenarioError('trace', `ended before any request was measured (warm-up ${warmup} requests)`);
  }
  return summarize(params, out, { policy: sim.name, arrivals: opts.trace ? 'trace' : params.arrivalProcess ? 'mmpp' : 'poisson', seed });
}

/** The scenario as the engine's system: one server, one class. */
function singleServer(params: ModelParams): EngineSystem {
  const { maxBatchSize, busyPower, idlePower } = params;
  return { servers: [{ maxBatchSize, service: [params], busyPower, idlePower }], mixed: false };
}

/**
 * Wraps a state policy of src/policy, named `greedy`, `static:b` where it is one, else its
 * table. A policy with one table per arrival phase (docs/model.md §7) reads the MMPP's phase.
 */
export function tablePolicy(p: Policy, B: number, name?: string): SimPolicy {
  checkPolicy(p, B);
  if (phasesOf(p) > 1) return new MmppTablePolicy(p, name ?? formatPolicy(p));
  return new TablePolicy(p, name ?? describeTable(p, B));
}

function describeTable(p: Policy, B: number): string {
  const allWait = p.actions.every((a) => a === 0);
  if (allWait && p.actions.length === 1 && p.tailBatch === B) return 'greedy';
  if (allWait && p.actions.length === p.tailBatch) return `static:${p.tailBatch}`;
  if (allWait && p.tailBatch === B) return `control-limit:${p.actions.length}`;
  return formatPolicy(p);
}

function isSimPolicy(p: SimPolicy | Policy): p is SimPolicy {
  return typeof (p as SimPolicy).decide === 'function';
}

/** With Poisson arrivals a policy whose long-queue batch cannot keep up is refused up front. */
function assertStable(params: ModelParams, sim: SimPolicy): void {
  const b = sim.sustainedBatch;
  if (b <= 0) return;
  const size = sim.padding ? sim.padding[b] : b;
  const l = params.meanService[size];
  if (!(params.arrivalRate * l < b)) {
    throw new ScenarioError(
      'policy',
      `${sim.name} is unstable: for long queues it serves batches of ${b}, which clear at most ${b}/l(${size}) = ${b / l} /s < arrivalRate ${params.arrivalRate} /s`,
    );
  }
}

function checkInteger(v: number, field: string, min: number, max: number): void {
  if (!Number.isInteger(v)) throw new ScenarioError(field, `must be an integer (got ${v})`);
  if (v < min) throw new ScenarioError(field, `must be ≥ ${min} (got ${v})`);
  if (v > max) {
    if (field === 'requests') throw new LimitError(field, `must be ≤ ${max} per simulation (got ${v})`);
    throw new ScenarioError(field, `must be ≤ ${max} (got ${v})`);
  }
}
