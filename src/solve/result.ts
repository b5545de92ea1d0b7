import type { TraceFitReport } from '../fit/fitTrace.js';
import type { LatencyFigures } from '../latency/summary.js';
import type { ArrivalSource, MmppProcess } from '../model/mmpp/process.js';
import { likeliestPhase } from '../model/mmpp/process.js';
import type { ModelParams } from '../model/scenario.js';
import type { DetailedEvaluation, Evaluation, PhaseFigures } from '../policy/evaluate.js';
import { phasePolicy, phasesOf, summarizePhases, summarizePolicy, type PhasePolicySummary, type Policy, type PolicySummary } from '../policy/policy.js';
import type { StopReason } from './types.js';

/** Facts about how a result was obtained. */
export interface SolverFacts {
  /** `cpu` or `webgpu`. */
  readonly backend: string;
  /** GPU adapter description, empty on the CPU. */
  readonly adapter: string;
  /** Algorithm, e.g. `policy-iteration` or `value-iteration`. */
  readonly method: string;
  /** Truncation level S finally used. */
  readonly maxQueue: number;
  /** States of the truncated model, S + 1. */
  readonly states: number;
  /** Iterations (sweeps or policy-iteration steps) of the final solve. */
  readonly iterations: number;
  /** Iterations over all the S tried. */
  readonly totalIterations: number;
  /** Wall time of the whole solve, seconds. */
  readonly seconds: number;
  /** Stationary mass, under the returned policy, of the states within B of the top (s > S − B). */
  readonly tailMass: number;
  readonly stopReason: StopReason;
  /** Every S tried, in order (automatic S grows until tailMass < 1e-9). */
  readonly maxQueueTried: number[];
  /** GPU sweeps before the f64 polish (GPU backend only). */
  readonly gpuIterations?: number;
  /** f64 policy-iteration steps after the GPU (GPU backend only). */
  readonly polishSteps?: number;
}

/**
 * What a solve returns (docs/model.md §5): the exact f64 evaluation of the returned policy, the
 * solver's certified interval [m, M] for the optimal average cost, the policy, and facts.
 * The same object is the final message of the gRPC Solve stream.
 */
export interface SolveResult extends Evaluation {
  readonly averageCostLower: number;
  readonly averageCostUpper: number;
  /**
   * Under MMPP arrivals (docs/model.md §7) the top-level fields describe the policy in the likeliest
   * phase, and `phases` holds one control limit and action table per phase.
   */
  readonly policy: PolicyDescription;
  readonly solver: SolverFacts;
  /** MMPP arrivals only: the process solved for (fitted, for a trace). */
  readonly arrivalProcess?: ArrivalProcessSummary;
  /** MMPP arrivals only: the batches started in each phase. */
  readonly phaseFigures?: PhaseFigures[];
  /** Response-time percentiles of the policy (docs/model.md §9); absent when skipped or unavailable. */
  readonly latency?: LatencyFigures;
  /** Why `latency` is absent when it was asked for (e.g. MMPP arrivals). */
  readonly latencyUnavailable?: string;
}

/** The arrival process a result was solved or evaluated for. */
export interface ArrivalProcessSummary {
  readonly source: ArrivalSource;
  readonly phases: number;
  /** λ̄ = π·λ, requests/s. */
  readonly meanRate: number;
  readonly rates: number[];
  /** Q, row-major. */
  readonly generator: number[];
  readonly stationary: number[];
  /** For a trace: the fit's quality against it. */
  readonly fit?: TraceFitReport;
}

/** What `evaluate` returns: the exact evaluation and the policy's compact form. */
export interface EvaluationResult extends Evaluation {
  readonly policy: PolicyDescription;
  readonly arrivalProcess?: ArrivalProcessSummary;
  readonly phaseFigures?: PhaseFigures[];
  /** As on SolveResult. */
  readonly latency?: LatencyFigures;
  readonly latencyUnavailable?: string;
}

/** A policy's compact form as results show it: under MMPP arrivals the likeliest phase's table on top, and one per phase. */
export type PolicyDescription = PolicySummary & { readonly phases?: PhasePolicySummary[] };

export function describePolicy(p: ModelParams, policy: Policy): PolicyDescription {
  const B = p.maxBatchSize;
  const proc = p.arrivalProcess;
  if (!proc) return summarizePolicy(policy, B);
  // The top-level summary reads the likeliest phase's table (a one-phase policy's own table).
  const main = phasesOf(policy) === 1 ? policy : phasePolicy(policy, likeliestPhase(proc));
  return { ...summarizePolicy(main, B), phases: summarizePhases(policy, proc, B) };
}

/**
 * The solver's table back from its compact form (what `simulate --policy optimal`, the planners
 * and the fleet router run): one table per phase for MMPP arrivals. Solver tables serve
 * min(s, B) past their end.
 */
export function policyOf(d: { readonly actions: readonly number[]; readonly phases?: readonly { readonly actions: readonly number[] }[] }, B: number): Policy {
  const phases = d.phases;
  if (!phases || phases.length === 0) return { actions: Int32Array.from(d.actions), tailBatch: B };
  const M = phases.length;
  const levels = Math.max(...phases.map((p) => p.actions.length));
  const actions = new Int32Array(levels * M);
  for (let j = 0; j < M; j++) for (let s = 0; s < levels; s++) actions[s * M + j] = phases[j].actions[s] ?? Math.min(s, B);
  return { phases: M, actions, tailBatch: B };
}

/** The policy, figures and arrival facts a result shows; MMPP scenarios add the per-phase ones. */
export function describeEvaluation(p: ModelParams, policy: Policy, ev: DetailedEvaluation): EvaluationResult {
  const { stationary: _nu, levels: _n, phases: phaseFigures, ...figures } = ev;
  const proc = p.arrivalProcess;
  const described = describePolicy(p, policy);
  if (!proc) return { ...figures, policy: described };
  return { ...figures, policy: described, arrivalProcess: arrivalSummary(proc), phaseFigures };
}

export function arrivalSummary(proc: MmppProcess): ArrivalProcessSummary {
  return {
    source: proc.source,
    phases: proc.phases,
    meanRate: proc.meanRate,
    rates: Array.from(proc.rates),
    generator: Array.from(proc.generator),
    stationary: Array.from(proc.stationary),
    ...(proc.fit ? { fit: proc.fit } : {}),
  };
}
