import type { Distribution, SolverSettings } from '../scenario.js';

/** One request class, validated (docs/model.md §10). Index b = 1..B; index 0 unused. */
export interface ClassParams {
  readonly name: string;
  readonly arrivalRate: number;
  readonly maxBatchSize: number;
  /** l_c(b), seconds. */
  readonly meanService: Float64Array;
  /** m2_c(b), s². */
  readonly secondMoment: Float64Array;
  /** P_c(b), watts. */
  readonly busyPower: Float64Array;
  readonly distribution: Distribution;
  /** 0 deterministic, 1 exponential, the gamma cv otherwise. */
  readonly cv: number;
  /** w_c, per second of this class's mean response time. */
  readonly latencyWeight: number;
  /** Truncation S_c; 0 = automatic. */
  readonly maxQueue: number;
}

export interface ClassesParams {
  readonly classes: readonly ClassParams[];
  /** P0, shared. */
  readonly idlePower: number;
  /** w_pow, shared. */
  readonly powerWeight: number;
}

export interface ValidatedClassesScenario {
  readonly params: ClassesParams;
  readonly solver: SolverSettings;
}

/** Largest number of classes this phase solves. */
export const MAX_CLASSES = 3;
