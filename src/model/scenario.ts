/**
 * The scenario: the JSON form users write (CLI files) and the gRPC service receives
 * (proto3 JSON mapping of `batchwise.v1.Scenario`). Field names follow the proto.
 */
import type { MmppProcess } from './mmpp/process.js';
import type { ArrivalProcessSpec } from './mmpp/spec.js';

export type Distribution = 'DETERMINISTIC' | 'EXPONENTIAL' | 'GAMMA';
export type Backend = 'AUTO' | 'CPU' | 'GPU';
export type Method = 'AUTO' | 'POLICY_ITERATION' | 'VALUE_ITERATION';

export interface LinearFit {
  perItem: number;
  base: number;
}

export interface Table {
  values: number[];
}

export interface ServiceTimeSpec {
  linear?: LinearFit;
  table?: Table;
  distribution?: Distribution;
  /** Coefficient of variation, GAMMA only. */
  cv?: number;
}

export interface PowerSpec {
  idleWatts?: number;
  busyLinear?: LinearFit;
  busyTable?: Table;
}

export interface ObjectiveSpec {
  latencyWeight?: number;
  powerWeight?: number;
}

export interface SolverSpec {
  /** Truncation level S; 0 = automatic. */
  maxQueue?: number;
  /** Relative gap of the certified interval at which to stop; 0 = default 1e-9. */
  tolerance?: number;
  /** Iteration cap; 0 = automatic. */
  maxIterations?: number;
  backend?: Backend;
  method?: Method;
}

export interface Scenario {
  arrivalRate: number;
  maxBatchSize: number;
  serviceTime: ServiceTimeSpec;
  power: PowerSpec;
  objective: ObjectiveSpec;
  solver?: SolverSpec;
  /**
   * Bursty arrivals (docs/model.md §7): an MMPP, a burst profile or a trace to fit. With it,
   * arrivalRate may be 0 (or omitted) and then means the process's mean rate λ̄; any other
   * value must equal λ̄.
   */
  arrivalProcess?: ArrivalProcessSpec;
}

/** The validated, numeric form the model is built from. Index b = 1..B; index 0 unused. */
export interface ModelParams {
  readonly arrivalRate: number;
  readonly maxBatchSize: number;
  /** l(b): mean service time of a batch of b, seconds. */
  readonly meanService: Float64Array;
  /** m2(b): second moment of the service time of a batch of b, s². */
  readonly secondMoment: Float64Array;
  /** P(b): power while a batch of b is in service, watts. */
  readonly busyPower: Float64Array;
  readonly idlePower: number;
  readonly distribution: Distribution;
  /** Coefficient of variation of T_b (0 deterministic, 1 exponential). */
  readonly cv: number;
  readonly latencyWeight: number;
  readonly powerWeight: number;
  /** MMPP arrivals (docs/model.md §7); arrivalRate is then its mean rate λ̄. Absent = Poisson(arrivalRate). */
  readonly arrivalProcess?: MmppProcess;
}

export interface SolverSettings {
  /** 0 = automatic. */
  readonly maxQueue: number;
  readonly tolerance: number;
  /** 0 = automatic. */
  readonly maxIterations: number;
  readonly backend: Backend;
  readonly method: Method;
}

export interface ValidatedScenario {
  readonly params: ModelParams;
  readonly solver: SolverSettings;
}

export const DEFAULT_TOLERANCE = 1e-9;
