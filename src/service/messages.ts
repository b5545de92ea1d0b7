/**
 * TypeScript shapes of the service's messages (proto3 JSON names, as proto-loader decodes
 * them with keepCase = false and enums as strings). Requests are loose (`unknown` where the
 * validator takes over); responses reuse the core result types.
 */
import type { PolicySummary } from '../policy/policy.js';
import type { ClassesSolveResult } from '../solve/classes/result.js';
import type { EvaluationResult, SolveResult } from '../solve/result.js';
import type { SimulationResult } from '../sim/result.js';

export interface SolveRequest {
  scenario?: unknown;
  progressIntervalMs?: number;
  skipPercentiles?: boolean;
}

export interface SolveProgressMessage {
  iteration: number;
  averageCostLower: number;
  averageCostUpper: number;
  maxQueue: number;
  controlLimit: number;
  /** Single-class scenarios; unset for classes (the joint policy is in the result only). */
  policy?: PolicySummary;
  /** Classes scenarios: (S_1, …, S_C) of the box being solved. */
  classMaxQueue?: number[];
}

export interface SolveUpdate {
  done: boolean;
  progress?: SolveProgressMessage;
  result?: SolveResult;
  /** A scenario with classes: the ClassesSolveResult message (convert/classes.ts). */
  classesResult?: Record<string, unknown>;
  /** The certified result before its percentiles (one update with done = false; proto SolveUpdate.solved). */
  solved?: SolveResult;
  cached: boolean;
  warmStarted: boolean;
}

export interface ScenarioGrid {
  base?: unknown;
  arrivalRate?: number[];
  maxBatchSize?: number[];
  latencyWeight?: number[];
  powerWeight?: number[];
}

export interface SolveBatchRequest {
  list?: { scenarios?: unknown[] };
  grid?: ScenarioGrid;
  disableWarmStart?: boolean;
  skipPercentiles?: boolean;
}

export interface ScenarioParameters {
  arrivalRate: number;
  maxBatchSize: number;
  latencyWeight: number;
  powerWeight: number;
}

export interface BatchError {
  code: string;
  field: string;
  message: string;
}

/**
 * One scenario's answer in a batch: `result` (single-class), `classesResult` (a scenario with
 * classes) or `error`. `Classes` is the classes result's form: the library's ClassesSolveResult
 * (what BatchwiseClient.solveBatch yields), or on the wire the ClassesSolveResult message
 * (ScenarioResultMessage, convert/classes.ts).
 */
export interface ScenarioResult<Classes = ClassesSolveResult> {
  index: number;
  parameters: ScenarioParameters;
  result?: SolveResult;
  classesResult?: Classes;
  error?: BatchError;
  cached: boolean;
  warmStarted: boolean;
}

/** ScenarioResult as the SolveBatch handler writes it. */
export type ScenarioResultMessage = ScenarioResult<Record<string, unknown>>;

export interface PolicySpecMessage {
  spec?: string;
  table?: { actions?: number[] };
}

export interface EvaluateRequest {
  scenario?: unknown;
  policy?: PolicySpecMessage;
  skipPercentiles?: boolean;
}

export type EvaluateResponse = EvaluationResult;

/** Simulate (the fields of src/sim's SimulateRequest; integers may arrive as numbers). */
export interface SimulateRequestMessage {
  scenario?: unknown;
  policy?: string;
  requests?: number;
  seed?: number;
  warmupRequests?: number;
  confidenceBatches?: number;
  arrivalTimestamps?: number[];
}

/** The SimulationResult message: the core's result, with CI half-widths unset instead of null. */
export type SimulateResponse = SimulationResult;
