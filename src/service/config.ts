import { availableParallelism } from 'node:os';
import { arrivalsOf } from '../model/arrivalTable.js';
import { LimitError } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import type { ValidatedClassesScenario } from '../model/classes/params.js';
import type { ValidatedScenario } from '../model/scenario.js';

/** Named bounds of the service; each refusal names the bound and its value. */
export interface ServiceLimits {
  /** Most states one solve may use, (S + 1)·M with M arrival phases (1 for Poisson), explicit or grown automatically. */
  readonly maxStates: number;
  /** Largest max batch size B accepted. */
  readonly maxBatchSize: number;
  /** Most scenarios in one SolveBatch request (list length or grid product). */
  readonly maxScenariosPerBatch: number;
  /** Solves (and evaluations) running at once: the number of worker threads. */
  readonly maxConcurrentSolves: number;
  /** Single requests that may wait for a worker; past this, RESOURCE_EXHAUSTED. */
  readonly maxQueuedSolves: number;
  /** Calls one peer (client connection) may have waiting for a worker; past this, RESOURCE_EXHAUSTED. */
  readonly maxQueuedPerPeer: number;
  /**
   * Most estimated work of one call: chain entries of its solves as compile.ts charges them
   * (states × band width, or the geometric reduction’s ~3B a state: model/chainEntries.ts), summed
   * over a batch's scenarios not answered from the cache (solving/work.ts); past this,
   * RESOURCE_EXHAUSTED before any solve starts.
   */
  readonly maxWorkPerCall: number;
  /** Largest request / response message, bytes. */
  readonly maxMessageBytes: number;
}

export const DEFAULT_LIMITS: ServiceLimits = {
  maxStates: LIMITS.maxQueue + 1,
  maxBatchSize: LIMITS.maxBatchSize,
  maxScenariosPerBatch: 10_000,
  maxConcurrentSolves: Math.max(1, availableParallelism()),
  maxQueuedSolves: 64,
  maxQueuedPerPeer: 16,
  maxWorkPerCall: 1e10,
  maxMessageBytes: 16 * 1024 * 1024,
};

export const DEFAULT_PROGRESS_INTERVAL_MS = 100;
/** A request may ask for progress more often than the default, but not more often than this. */
export const MIN_PROGRESS_INTERVAL_MS = 10;

/** Checks a validated scenario against the service's bounds (the core has its own, wider ones). */
export function checkScenarioLimits(s: ValidatedScenario, limits: ServiceLimits): void {
  const B = s.params.maxBatchSize;
  if (B > limits.maxBatchSize) {
    throw new LimitError('maxBatchSize', `must be ≤ this server's maxBatchSize limit ${limits.maxBatchSize} (got ${B})`);
  }
  const S = s.solver.maxQueue;
  if (S > 0 && solveStates(s, S) > limits.maxStates) {
    throw new LimitError('solver.maxQueue', `gives ${solveStates(s, S)} states, above this server's maxStates limit ${limits.maxStates}`);
  }
}

/** Joint states of a multi-class solve on the box S = (S_1, …, S_C): Π_c (S_c + 1). */
export function classesStates(S: readonly number[]): number {
  return S.reduce((n, s) => n * (s + 1), 1);
}

/**
 * A multi-class scenario against the service's bounds: every B_c, and the joint state count
 * when every S_c is given (an automatic box is checked as it grows, in the solve job).
 */
export function checkClassesLimits(s: ValidatedClassesScenario, limits: ServiceLimits): void {
  s.params.classes.forEach((c, i) => {
    if (c.maxBatchSize > limits.maxBatchSize) {
      throw new LimitError(`classes[${i}].maxBatchSize`, `must be ≤ this server's maxBatchSize limit ${limits.maxBatchSize} (got ${c.maxBatchSize})`);
    }
  });
  const S = s.params.classes.map((c) => c.maxQueue);
  if (S.every((v) => v > 0) && classesStates(S) > limits.maxStates) {
    throw new LimitError('classes', `the maxQueue of the classes (${S.join(', ')}) give ${classesStates(S)} joint states, above this server's maxStates limit ${limits.maxStates}`);
  }
}

/** States of a solve at queue bound S: (S + 1) levels times the arrival phases. */
export function solveStates(s: ValidatedScenario, S: number): number {
  return (S + 1) * arrivalsOf(s.params).phases;
}

/** Progress interval of one request: 0 means the server default; never below the minimum. */
export function progressInterval(requested: number | undefined, serverDefault: number): number {
  const r = requested ?? 0;
  return r > 0 ? Math.max(MIN_PROGRESS_INTERVAL_MS, r) : serverDefault;
}
