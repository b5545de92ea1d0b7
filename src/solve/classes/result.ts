import type { ClassesModel } from '../../model/classes/compile.js';
import type { SolveResult } from '../result.js';
import type { StopReason } from '../types.js';
import type { ClassFigures } from './figures.js';

/** The policy over n = (n_1, …, n_C), flat with the last class fastest, and its compact form. */
export interface ClassesPolicy {
  /** S_c per class: the table covers n_c = 0..S_c. */
  readonly maxQueue: number[];
  /** Per state: the class served (0-based), or −1 to wait. */
  readonly serveClass: number[];
  /** Per state: the batch size served (0 when waiting). */
  readonly batch: number[];
  /** Per class: the smallest n_c at which the class is served when the others are empty (null: never within S_c). */
  readonly controlLimits: (number | null)[];
  /**
   * Two classes: for n_1 = 0..S_1, the smallest n_2 ≥ 1 at which class 2 is served rather than
   * class 1 or waiting (null: not within S_2) — the switching curve.
   */
  readonly switchingCurve?: (number | null)[];
}

export interface ClassesSolverFacts {
  readonly backend: string;
  readonly method: string;
  /** The WebGPU adapter whose f32 stage started the f64 solves (backend webgpu). */
  readonly adapter?: string;
  /**
   * f32 sweeps on the GPU over every box (backend webgpu: the stage's and the refinement's residual
   * evaluations); `iterations` counts the f64 sweeps on the CPU (the refinement's steps and the RVI's).
   */
  readonly gpuIterations?: number;
  readonly states: number;
  /** Threads of the last box's f64 sweeps (worker threads over state blocks when more than one). */
  readonly threads?: number;
  readonly iterations: number;
  readonly totalIterations: number;
  readonly seconds: number;
  readonly stopReason: StopReason;
  /** Every S = (S_1, …, S_C) tried, in order. */
  readonly maxQueueTried: number[][];
  /** Per class: the stationary mass within B_c of its top. */
  readonly tailMass: number[];
  /** Multiply-adds of one joint Bellman sweep (absent for one class, solved by the single-class path) (kernel entries over every allowed serve). */
  readonly sweepWork?: number;
}

/** What a multi-class solve returns (docs/model.md §10). */
export interface ClassesSolveResult {
  readonly classes: (ClassFigures & { readonly arrivalRate: number; readonly maxBatchSize: number })[];
  /** Σ_c w_c·E[R_c] + w_pow·E[P] of the returned policy. */
  readonly averageCost: number;
  readonly meanPower: number;
  /** The certified interval of the optimal g (Odoni bounds of the last f64 sweep). */
  readonly averageCostLower: number;
  readonly averageCostUpper: number;
  readonly policy: ClassesPolicy;
  readonly solver: ClassesSolverFacts;
  /** One class: the single-class solve (docs/model.md §5) this result restates, with its percentiles (§9). */
  readonly single?: SolveResult;
  /** Several classes: why the result has no per-class percentiles (docs/model.md §10); the means are exact. */
  readonly latencyUnavailable?: string;
}

export function describeClassesPolicy(model: ClassesModel, policy: Int32Array): ClassesPolicy {
  const { C, S, strides, states, actionClass, actionBatch } = model;
  const serveClass = Array.from(policy, (a) => (a === 0 ? -1 : actionClass[a]));
  const batch = Array.from(policy, (a) => actionBatch[a]);
  const controlLimits = Array.from(S, (top, c) => {
    for (let v = 1; v <= top; v++) if (serveClass[v * strides[c]] === c) return v;
    return null;
  });
  const out: ClassesPolicy = { maxQueue: Array.from(S), serveClass, batch, controlLimits };
  if (C !== 2 || states !== serveClass.length) return out;
  const curve: (number | null)[] = [];
  for (let n1 = 0; n1 <= S[0]; n1++) {
    let at: number | null = null;
    for (let n2 = 1; n2 <= S[1] && at === null; n2++) if (serveClass[n1 * strides[0] + n2] === 1) at = n2;
    curve.push(at);
  }
  return { ...out, switchingCurve: curve };
}
