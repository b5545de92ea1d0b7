import { LimitError } from '../../model/errors.js';
import type { QueueEstimate } from '../../model/queueEstimate.js';
import type { ValidatedScenario } from '../../model/scenario.js';
import type { Policy } from '../../policy/policy.js';
import { runPlanningCall, type PlanningCall, type PlanningResponse } from '../../plan/request.js';
import { runSimulateCall, type SimulateCall } from '../../sim/request.js';
import type { SimulationResult } from '../../sim/result.js';
import { evaluateScenarioPolicy } from '../../solve/evaluateScenario.js';
import { latencyOfSolved, type LatencyOutcome } from '../../latency/summary.js';
import type { EvaluationResult, SolveResult } from '../../solve/result.js';
import { solveScenarioDetailed, type WarmStart } from '../../solve/solveScenario.js';
import { CORE_BOUNDS, loadCause, loadField, loadRefusal } from '../../solve/maxQueue.js';
import type { SolverProgress } from '../../solve/types.js';
import { runFleetPlanCall, runFleetSimulateCall, type FleetPlanAnswer, type FleetPlanCall, type FleetSimulateCall } from '../../fleet/request.js';
import type { FleetRun } from '../../fleet/run.js';
import { solveStates, type ServiceLimits } from '../config.js';
import { prepareScenarios, type Prepared } from '../batch/prepare.js';
import type { ClassesSolveResult } from '../../solve/classes/result.js';
import type { ClassesProgress } from '../convert/classes.js';
import { runClassesSolveJob, type ClassesJobResult, type ClassesSolveJob } from './classesJob.js';

/**
 * The work a pool worker can do, one entry per kind. To add a kind (e.g. `simulate`), add
 * its types to JobTypes and its function to JOBS; the pool, the wire format and
 * cancellation need no change.
 */
export interface JobTypes {
  solve: { payload: SolveJob; result: SolveJobResult; progress: SolverProgress };
  evaluate: { payload: EvaluateJob; result: EvaluationResult; progress: never };
  latency: { payload: LatencyJob; result: LatencyOutcome; progress: never };
  simulate: { payload: SimulateJob; result: SimulationResult; progress: never };
  planning: { payload: PlanningCall; result: PlanningResponse; progress: never };
  fleetSimulate: { payload: FleetSimulateCall; result: FleetRun; progress: never };
  fleetPlan: { payload: FleetPlanCall; result: FleetPlanAnswer; progress: never };
  prepare: { payload: PrepareJob; result: Prepared[]; progress: never };
  classesSolve: { payload: ClassesSolveJob; result: ClassesJobResult; progress: ClassesProgress };
}

/** Scenarios of a call in their JSON form, to validate off the main thread (batch/prepare.ts). */
export interface PrepareJob {
  readonly scenarios: readonly unknown[];
  readonly limits: ServiceLimits;
}

export type JobKind = keyof JobTypes;

export interface SolveJob {
  readonly scenario: ValidatedScenario;
  readonly warmStart?: WarmStart;
  /** Least time between progress messages; 0 = no progress. */
  readonly progressIntervalMs: number;
  /** The service's bound on states (S + 1), checked as the automatic S grows. */
  readonly maxStates: number;
  /** Response-time percentiles in the result (false when no caller of the solve wants them). */
  readonly percentiles: boolean;
}

export interface SolveJobResult {
  readonly result: SolveResult;
  readonly warmStart: { readonly values: Float64Array; readonly policy: Int32Array };
}

export interface EvaluateJob {
  readonly scenario: ValidatedScenario;
  readonly policy: Policy;
  readonly percentiles: boolean;
}

/** The percentiles of a policy solved at S, for a result that came without them (cache, shared solve, GPU). */
export interface LatencyJob {
  readonly scenario: ValidatedScenario;
  readonly policy: Policy;
  readonly maxQueue: number;
}

export interface SimulateJob {
  readonly call: SimulateCall;
  /** The solved policy when the call asks for `optimal` (one table per phase for MMPP arrivals). */
  readonly optimal?: Policy;
}

export interface JobIo<P> {
  readonly signal: AbortSignal;
  progress(p: P): void;
}

export interface JobOutput<R> {
  readonly result: R;
  /** Buffers moved, not copied, to the main thread. */
  readonly transfer?: ArrayBuffer[];
}

type JobFn<K extends JobKind> = (payload: JobTypes[K]['payload'], io: JobIo<JobTypes[K]['progress']>) => Promise<JobOutput<JobTypes[K]['result']>>;

export const JOBS: { readonly [K in JobKind]: JobFn<K> } = {
  async solve(job, io) {
    const limit = new AbortController();
    const signal = AbortSignal.any([io.signal, limit.signal]);
    let last = -Infinity;
    let overLimit: LimitError | undefined;
    try {
      const out = await solveScenarioDetailed(job.scenario, {
        signal,
        warmStart: job.warmStart,
        percentiles: job.percentiles,
        onProgress: (p) => {
          // The automatic S grows in steps; stop as soon as it passes the service's bound.
          if (solveStates(job.scenario, p.maxQueue) > job.maxStates && !overLimit) {
            overLimit = statesLimit(job, p.maxQueue);
            limit.abort(overLimit);
          }
          const now = performance.now();
          if (job.progressIntervalMs > 0 && now - last >= job.progressIntervalMs) {
            last = now;
            io.progress(p);
          }
        },
      });
      return { result: out, transfer: [out.warmStart.values.buffer as ArrayBuffer, out.warmStart.policy.buffer as ArrayBuffer] };
    } catch (e) {
      if (overLimit && !io.signal.aborted) throw overLimit;
      throw e;
    }
  },

  async evaluate(job, io) {
    return { result: evaluateScenarioPolicy(job.scenario, job.policy, { signal: io.signal, percentiles: job.percentiles }) };
  },

  async latency(job, io) {
    return { result: latencyOfSolved(job.scenario.params, job.policy, job.maxQueue, io.signal) };
  },

  async simulate(job, io) {
    return { result: runSimulateCall(job.call, job.optimal, { signal: io.signal }) };
  },

  async planning(call, io) {
    return { result: await runPlanningCall(call, { signal: io.signal }) };
  },

  async fleetSimulate(call, io) {
    return { result: await runFleetSimulateCall(call, { signal: io.signal }) };
  },

  async fleetPlan(call, io) {
    return { result: await runFleetPlanCall(call, { signal: io.signal }) };
  },

  async prepare(job) {
    return { result: prepareScenarios(job.scenarios, job.limits) };
  },

  classesSolve: runClassesSolveJob,
};

function statesLimit(job: SolveJob, S: number): LimitError {
  const explicit = job.scenario.solver.maxQueue > 0;
  const states = solveStates(job.scenario, S);
  const facts = { bound: 'maxStates', excess: states / job.maxStates };
  const reason = `the solve needs ${states} states, above this server's maxStates = ${job.maxStates}`;
  if (explicit) return new LimitError('solver.maxQueue', reason, facts);
  // The load is too close to capacity for this server: with an estimate of the load that fits its bound and the core's.
  const bounds = [...CORE_BOUNDS, { name: 'maxStates', allowed: job.maxStates, need: (e: QueueEstimate) => e.states }];
  const p = job.scenario.params;
  return loadRefusal(p, loadField(p), `${reason} (${loadCause(p)} for this server)`, facts, bounds);
}
