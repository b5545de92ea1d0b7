import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import type { ValidatedScenario } from '../../model/scenario.js';
import type { ClassesSolveResult } from '../../solve/classes/result.js';
import type { SolveResult } from '../../solve/result.js';
import type { WarmStart } from '../../solve/solveScenario.js';
import type { JointGpuStage } from '../../solve/types.js';

/** One valid scenario of a batch, ready to solve. */
export interface BatchTask {
  /** Position in the request (list order or grid index order). */
  readonly index: number;
  readonly scenario: ValidatedScenario;
  /** Canonical key (see cache/canonical.ts). */
  readonly key: string;
  /** The same scenario in its JSON form, for executors whose API validates JSON themselves. */
  readonly input: unknown;
}

export type BatchOutcome =
  | {
      readonly index: number;
      readonly ok: true;
      readonly result: SolveResult;
      /** Final values and policy, to cache and to warm-start neighbours; optional for executors that have none. */
      readonly warmStart?: { readonly values: Float64Array; readonly policy: Int32Array };
      readonly cached: boolean;
      readonly warmStarted: boolean;
    }
  | { readonly index: number; readonly ok: false; readonly error: unknown };

/**
 * A valid multi-class scenario of a batch (docs/model.md §10). The CPU pool solves these
 * (CpuBatchExecutor.solveClasses) unless an executor takes them (acceptsClasses: the WebGPU
 * batch, for backend GPU).
 */
export interface ClassesBatchTask {
  readonly index: number;
  readonly scenario: ValidatedClassesScenario;
  /** Backend AUTO, two or three classes: the sweep work of the box a cold solve starts from (firstBox.ts), for the AUTO rule. */
  readonly firstBoxWork?: number;
}

/** A ClassesBatchTask's outcome; `classes` tells it from a BatchOutcome where the two streams merge. */
export type ClassesBatchOutcome =
  | { readonly classes: true; readonly index: number; readonly ok: true; readonly result: ClassesSolveResult; readonly cached: boolean; readonly warmStarted: boolean }
  | { readonly classes: true; readonly index: number; readonly ok: false; readonly error: unknown };

export interface BatchContext {
  /** The call's signal: stop starting work and abort running work when it fires. */
  readonly signal: AbortSignal;
  /** False when the request asked for cold solves (to measure what warm starts save). */
  readonly warmStarts: boolean;
  /** Whether the results carry response-time percentiles (the handler fills in any an executor leaves out). */
  readonly percentiles: boolean;
  /** The call's flow and peer, for the pool's fair queue (executors that use the pool pass them on). */
  readonly flow?: string;
  readonly peer?: string;
  /** The nearest cached solution of the same shape, if any. */
  nearest(scenario: ValidatedScenario): WarmStart | undefined;
  /**
   * A multi-class solve through the service's classes cache, warm starts and bound on states,
   * its f32 stage by `jointStage` (SolveCoordinator.solveClasses); absent: the executor solves it alone.
   */
  readonly solveClasses?: (scenario: ValidatedClassesScenario, run: { readonly signal: AbortSignal; readonly jointStage: JointGpuStage }) => Promise<{ readonly result: ClassesSolveResult; readonly cached: boolean; readonly warmStarted: boolean }>;
}

/**
 * How a batch of valid scenarios gets solved. The service has a CPU worker-pool executor;
 * another (e.g. a batched WebGPU solve for backend GPU / AUTO) registers with
 * `registerBatchExecutor` and says which tasks it takes. Contract:
 *  - yield exactly one outcome per task taken (multi-class ones too), as each finishes, in any order;
 *  - a task that fails yields `{ ok: false, error }` (the error's type decides its status:
 *    ScenarioError / LimitError → INVALID_ARGUMENT, else INTERNAL), the batch goes on;
 *  - when `ctx.signal` fires, stop soon and return (no more outcomes needed).
 */
export interface BatchExecutor {
  readonly name: string;
  /** Whether this executor solves the task; tasks nobody else takes go to the CPU pool. */
  accepts(task: BatchTask): boolean;
  /** Whether this executor also solves the multi-class task, beside its single-class ones (so that they can share its GPU batches); absent: it takes none. A promise where the answer needs the device (backend AUTO). */
  acceptsClasses?(task: ClassesBatchTask): boolean | Promise<boolean>;
  /** `classes`: the multi-class tasks it accepted. */
  run(tasks: readonly BatchTask[], ctx: BatchContext, classes?: readonly ClassesBatchTask[]): AsyncIterable<BatchOutcome | ClassesBatchOutcome>;
}

const registered: BatchExecutor[] = [];

/** Adds an executor ahead of the CPU pool (first registered is asked first). Returns an unregister function. */
export function registerBatchExecutor(executor: BatchExecutor): () => void {
  registered.push(executor);
  return () => {
    const i = registered.indexOf(executor);
    if (i >= 0) registered.splice(i, 1);
  };
}

export function registeredBatchExecutors(): readonly BatchExecutor[] {
  return registered;
}

/**
 * Splits tasks among executors: each task to the first that accepts it, the fallback takes the
 * rest; the same for multi-class tasks among those that take them (acceptsClasses).
 */
export async function routeTasks(
  tasks: readonly BatchTask[],
  executors: readonly BatchExecutor[],
  fallback: BatchExecutor,
  classes: readonly ClassesBatchTask[] = [],
): Promise<Array<{ executor: BatchExecutor; tasks: BatchTask[]; classes: ClassesBatchTask[] }>> {
  const groups = new Map<BatchExecutor, { tasks: BatchTask[]; classes: ClassesBatchTask[] }>();
  const groupOf = (e: BatchExecutor) => {
    let g = groups.get(e);
    if (!g) groups.set(e, (g = { tasks: [], classes: [] }));
    return g;
  };
  for (const t of tasks) groupOf(executors.find((x) => x.accepts(t)) ?? fallback).tasks.push(t);
  for (const t of classes) groupOf((await firstAccepting(executors, t)) ?? fallback).classes.push(t);
  return [...groups].map(([executor, g]) => ({ executor, ...g }));
}

/** The first executor that takes the multi-class task, asked in order (each answer awaited before the next is asked). */
async function firstAccepting(executors: readonly BatchExecutor[], task: ClassesBatchTask): Promise<BatchExecutor | undefined> {
  for (const x of executors) if (await x.acceptsClasses?.(task)) return x;
  return undefined;
}
