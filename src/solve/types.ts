import type { ClassesModel } from '../model/classes/compile.js';
import type { CompiledModel } from '../model/compile.js';
import type { Backend, Method } from '../model/scenario.js';

/**
 * Why a solve stopped: the bounds met the tolerance; the iteration cap was hit; or the policy
 * is stable and f64 rounding keeps the (still valid) bounds slightly wider than the tolerance.
 */
/**
 * converged: the certified interval met the tolerance. max-iterations: the cap came first.
 * precision-limit: the bounds stopped narrowing at f64 precision. tail-mass: converged, but an
 * explicit solver.maxQueue was too small (the policy puts ≥ TAIL_MASS_BOUND on the levels near
 * S), so the interval is the truncated model's and need not hold the real system's g; the exact
 * figures are still the policy's own. (A solve that stopped early keeps its own reason; its
 * tailMass says whether the tail check held.)
 */
export type StopReason = 'converged' | 'max-iterations' | 'precision-limit' | 'tail-mass';

/** Sent every `progressEvery` iterations (and at the end). */
export interface SolverProgress {
  readonly iteration: number;
  /** Current Odoni bounds m_n ≤ g* ≤ M_n of the truncated model. */
  readonly lower: number;
  readonly upper: number;
  /** Greedy policy of the current step, flat over (S+1)·M states (solveScenario reports one phase's S+1). */
  readonly policy: Int32Array;
  readonly maxQueue: number;
}

export interface SolveOptions {
  /** Stop when M − m ≤ tolerance·|m|. */
  readonly tolerance: number;
  /** 0 = the solver's own default. */
  readonly maxIterations: number;
  /** Relative values h̃ and/or a policy (flat, (S+1)·M) to start from. */
  readonly warmStart?: { readonly values?: Float64Array; readonly policy?: Int32Array };
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: SolverProgress) => void;
  /** Iterations between progress callbacks (default: solver-specific). */
  readonly progressEvery?: number;
  /**
   * Asked with a stable policy whose bounds rounding still holds apart, before the value-iteration
   * sweeps that would close them: false skips those sweeps (the automatic S search asks whether the
   * policy passes the tail check; a model it fails is grown, so certifying it tighter is wasted).
   */
  readonly worthCertifying?: (policy: Int32Array) => boolean;
}

export interface SolverOutput {
  /** Actions for the flat states (s, j), s = 0..S. */
  readonly policy: Int32Array;
  /** Relative values h̃ of the transformed MDP at the end (h̃(0) = 0). */
  readonly values: Float64Array;
  readonly lower: number;
  readonly upper: number;
  readonly iterations: number;
  readonly stopReason: StopReason;
  /** Solver method, e.g. `policy-iteration`. */
  readonly method: string;
  readonly backend: string;
  /** Adapter description (GPU backends). */
  readonly adapter: string;
  /** GPU sweeps run before the f64 polish (GPU backends). */
  readonly gpuIterations?: number;
  /** f64 policy-iteration steps after the GPU (GPU backends). */
  readonly polishSteps?: number;
}

/**
 * Every solver, CPU or GPU, sits behind this: configuration in the object, the model in the
 * call (`solve(solver, problem)`). The model supplies everything a solver reads (its compiled
 * operators: Bellman step, exact evaluation, greedy rule; see src/policy), so one solver serves
 * every number of arrival phases.
 */
export interface Solver {
  readonly backend: string;
  solve(model: CompiledModel, options: SolveOptions): Promise<SolverOutput>;
}

/**
 * Where GPU solvers come from (src/solve/gpu/provider.ts by default, loaded on demand): a GPU
 * solver for the model when an adapter is usable and, for AUTO, pays off; undefined to use
 * the CPU.
 */
export interface GpuProvider {
  /** Whether the GPU solves a model of this sweep work (autoRule.ts): backend GPU whenever an adapter can be had, AUTO where the rule says it pays off; pick and pickJoint decide by it. */
  pays(backend: Backend, work: number): Promise<boolean>;
  pick(backend: Backend, method: Method, model: CompiledModel): Promise<Solver | undefined>;
  /** The f32 stage for a joint multi-class model (docs/model.md §10) by the same rule; undefined to stay on the CPU. */
  pickJoint(backend: Backend, model: ClassesModel): Promise<JointGpuStage | undefined>;
}

/** One joint model for the GPU's f32 stage, started from relative values (e.g. a smaller box's). */
export interface JointStageJob {
  readonly model: ClassesModel;
  readonly warm?: { readonly values?: Float64Array };
  readonly tolerance: number;
}

/** What the f32 stage found for a joint model: a start for the f64 polish, never a certificate. */
export interface JointStageResult {
  readonly values: Float64Array;
  readonly policy: Int32Array;
  readonly sweeps: number;
  readonly adapter: string;
}

/**
 * Runs the f32 stage of one joint model; undefined when it gave nothing to start from (no device,
 * a GPU failure, divergence: logged, and the solve goes on on the CPU). AbortError propagates.
 */
export type JointGpuStage = ((job: JointStageJob, signal?: AbortSignal) => Promise<JointStageResult | undefined>) & {
  /** The same device's evaluation of a fixed policy with per-state costs (src/solve/classes/refine.ts), for this model. */
  readonly residuals?: (model: ClassesModel) => JointResidualEvaluator;
};

/**
 * Evaluates a policy (allowed everywhere) with per-state costs in f32 from h = 0: the relative values
 * (0 at state 0) and the sweeps it took; undefined when the GPU gave nothing (logged).
 */
export type JointResidualEvaluator = (policy: Int32Array, costs: Float64Array, signal?: AbortSignal) => Promise<{ readonly values: Float64Array; readonly sweeps: number } | undefined>;
