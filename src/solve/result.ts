import type { Evaluation } from '../policy/evaluate.js';
import type { PolicySummary } from '../policy/policy.js';
import type { StopReason } from './types.js';
import type { TraceFitReport } from '../fit/fitTrace.js';
import type { ArrivalSource } from '../model/mmpp/process.js';
import type { PhaseFigures } from '../policy/mmpp/evaluate.js';
import type { PhasePolicySummary } from '../policy/mmpp/policy.js';

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
 * What a solve returns (spec §5): the exact f64 evaluation of the returned policy, the
 * solver's certified interval [m, M] for the optimal average cost, the policy, and facts.
 * The same object is the final message of the gRPC Solve stream.
 */
export interface SolveResult extends Evaluation {
  readonly averageCostLower: number;
  readonly averageCostUpper: number;
  /**
   * Under MMPP arrivals (spec §7) the top-level fields describe the policy in the likeliest
   * phase, and `phases` holds one control limit and action table per phase.
   */
  readonly policy: PolicySummary & { readonly phases?: PhasePolicySummary[] };
  readonly solver: SolverFacts;
  /** MMPP arrivals only: the process solved for (fitted, for a trace). */
  readonly arrivalProcess?: ArrivalProcessSummary;
  /** MMPP arrivals only: the batches started in each phase. */
  readonly phaseFigures?: PhaseFigures[];
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
  readonly policy: PolicySummary & { readonly phases?: PhasePolicySummary[] };
  readonly arrivalProcess?: ArrivalProcessSummary;
  readonly phaseFigures?: PhaseFigures[];
}
