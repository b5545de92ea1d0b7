import type { Evaluation } from '../policy/evaluate.js';
import type { PolicySummary } from '../policy/policy.js';
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
 * What a solve returns (spec §5): the exact f64 evaluation of the returned policy, the
 * solver's certified interval [m, M] for the optimal average cost, the policy, and facts.
 * The same object is the final message of the gRPC Solve stream.
 */
export interface SolveResult extends Evaluation {
  readonly averageCostLower: number;
  readonly averageCostUpper: number;
  readonly policy: PolicySummary;
  readonly solver: SolverFacts;
}

/** What `evaluate` returns: the exact evaluation and the policy's compact form. */
export interface EvaluationResult extends Evaluation {
  readonly policy: PolicySummary;
}
