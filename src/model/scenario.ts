/**
 * The scenario: the JSON form users write (CLI files) and the gRPC service receives
 * (proto3 JSON mapping of `batchwise.v1.Scenario`). Field names follow the proto.
 */
import type { MmppProcess } from './mmpp/process.js';
import type { ArrivalProcessSpec } from './mmpp/spec.js';

export type Distribution = 'DETERMINISTIC' | 'EXPONENTIAL' | 'GAMMA';
export type Backend = 'AUTO' | 'CPU' | 'GPU';
export type Method = 'AUTO' | 'POLICY_ITERATION' | 'VALUE_ITERATION';
/**
 * How allowed batch sizes restrict the batches (docs/model.md §11.1): PAD_TO_ALLOWED (default,
 * TF Serving's allowed_batch_sizes) serves any b, charged as the smallest allowed size ≥ b;
 * ONLY_ALLOWED serves the allowed sizes only.
 */
export type BatchSizeRule = 'PAD_TO_ALLOWED' | 'ONLY_ALLOWED';

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
  /** What the target serving system lets a policy do (docs/model.md §11.1); absent = nothing restricted. */
  restrictions?: RestrictionsSpec;
}

export interface RestrictionsSpec {
  /** Sizes the target runs, ascending or not, distinct, in 1..maxBatchSize, the largest = maxBatchSize. */
  allowedBatchSizes?: number[];
  batchSizeRule?: BatchSizeRule;
  /** Cap on the requests the target holds (Ray Serve max_ongoing_requests); 0 or absent = none. */
  maxOngoingRequests?: number;
}

/**
 * A restriction applied to the model (src/model/restriction.ts). The params that carry it are
 * the restricted model itself: maxBatchSize is the largest batch the target can serve and the
 * per-batch tables are those of each batch's charged size, so every consumer (compiled model,
 * exact evaluation, simulator) charges a batch as the target runs it.
 */
export interface Restriction {
  /** Ascending; empty = every size. */
  readonly allowedBatchSizes: readonly number[];
  readonly batchSizeRule: BatchSizeRule;
  /** 0 = no cap. */
  readonly maxOngoingRequests: number;
  /** [b], b = 1..maxBatchSize: the size a batch of b requests is charged as (b itself when not padded). */
  readonly chargedSize: Int32Array;
  /** [b]: 1 when serving b is an action (ONLY_ALLOWED: b is allowed; otherwise every b). */
  readonly serves: Uint8Array;
  /** The scenario's model without the restriction, for the unrestricted optimum. */
  readonly unrestricted: ModelParams;
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
  /** The target's restriction, already applied to the fields above. Absent = unrestricted. */
  readonly restriction?: Restriction;
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
