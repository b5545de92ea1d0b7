import type { ValidatedClassesScenario } from '../model/classes/params.js';
import { isClassesInput, validateClassesScenario } from '../model/classes/validate.js';
import { AbortError } from '../model/errors.js';
import type { ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import { BackendUnavailableError, cpuSolver } from './backends.js';
import type { ClassesSolveResult } from './classes/result.js';
import { isValidatedClasses, solveClassesScenario } from './classes/solveClasses.js';
import { BatchCollector, type BatchRecord } from './gpu/collector.js';
import { acquireGpu, type GpuContext } from './gpu/device.js';
import { readFlags, type GpuFlags } from './gpu/flags.js';
import { roundRunners } from './gpu/roundRunners.js';
import type { GpuRunHooks } from './gpu/rvi.js';
import { gpuSolver } from './gpu/solver.js';
import { jointStage } from './gpu/stage.js';
import type { SolveResult } from './result.js';
import { solveScenarioDetailed, type WarmStart } from './solveScenario.js';
import type { JointGpuStage, Solver } from './types.js';

export interface GpuBatchOptions {
  /** GPU: every scenario's f32 stage on the GPU; AUTO: only batches the AUTO rule sends there. Default GPU. */
  readonly backend?: 'GPU' | 'AUTO';
  readonly signal?: AbortSignal;
  /** Scenarios in flight at once (default 256); the others start as these finish. */
  readonly concurrency?: number;
  /** A warm start for a scenario (e.g. the nearest cached solution). */
  readonly warmStart?: (index: number, scenario: ValidatedScenario) => WarmStart | undefined;
  readonly flags?: GpuFlags;
  readonly hooks?: GpuRunHooks;
  /** The f64 polish (default: CPU policy iteration). */
  readonly polish?: Solver;
  /**
   * Solves a multi-class scenario with the batch's joint stage (default: solveClassesScenario with
   * it; the service adds its cache, warm starts and bound on states).
   */
  readonly solveClasses?: (index: number, scenario: ValidatedClassesScenario, run: { readonly signal: AbortSignal; readonly jointStage: JointGpuStage }) => Promise<ClassesSolveResult>;
  /** Told of each GPU batch the collector runs: its model kind, how many jobs it held, and whose (indices into `scenarios`). */
  readonly onBatch?: (batch: BatchRecord) => void;
}

export type GpuBatchItem =
  | {
      readonly index: number;
      readonly result: SolveResult;
      /** Final values and policy, to cache or to warm-start neighbours. */
      readonly warmStart: { readonly values: Float64Array; readonly policy: Int32Array; readonly phases: number };
    }
  | { readonly index: number; readonly classes: ClassesSolveResult }
  | { readonly index: number; readonly error: Error };

/**
 * Solves many scenarios with GPU batches shared per round: every scenario's model (its own S, B
 * and number of arrival phases M, Poisson and MMPP alike) is packed into shared buffers and
 * iterated in the same dispatches; a scenario whose S must grow re-enters the next round.
 * Multi-class scenarios (a `classes` field, or validated; docs/model.md §10) share the rounds:
 * their joint f32 stages in one batch, their refinements' residual evaluations in another.
 * Each result is certified in f64 on the CPU exactly as a single GPU solve is, so a batch
 * gives the same answers as solving one by one. Yields one item per input, in completion
 * order; invalid scenarios yield an error item and the batch goes on. Scenarios that ask for
 * backend CPU are solved on the CPU. Throws BackendUnavailableError up front when backend GPU
 * is asked for and there is no adapter.
 */
export async function* solveScenariosOnGpu(scenarios: readonly unknown[], opts: GpuBatchOptions = {}): AsyncGenerator<GpuBatchItem, void, undefined> {
  const flags = opts.flags ?? readFlags();
  const backend = opts.backend ?? 'GPU';
  const ctx = await openForBatch(backend, flags);
  const polish = opts.polish ?? cpuSolver('POLICY_ITERATION');
  const inner = new AbortController();
  const onAbort = (): void => inner.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  const signal = inner.signal;
  const collector = new BatchCollector(roundRunners({ ctx, backend, flags, signal, hooks: opts.hooks }), opts.onBatch);
  // Each scenario's stages name it in the collector's batch records (onBatch).
  const solverOf = (index: number): Solver => gpuSolver((job) => collector.submit('single', job, index), polish);
  const jointOf = (index: number): JointGpuStage => jointStage((job, kind) => collector.submit(kind, job, index));
  const solveClasses = opts.solveClasses ?? ((_i, scenario, run) => solveClassesScenario(scenario, run));
  const done: GpuBatchItem[] = [];
  let wake: (() => void) | undefined;
  const push = (item: GpuBatchItem): void => {
    done.push(item);
    wake?.();
  };
  const limit = Math.max(1, opts.concurrency ?? 256);
  let next = 0;
  let inFlight = 0;
  const startMore = (): void => {
    while (inFlight < limit && next < scenarios.length) {
      const index = next++;
      inFlight++;
      // solveOne joins the collector synchronously; the finished one leaves only after the next
      // has joined, so that a round does not start without it.
      void solveOne(index).then(({ item, joined }) => {
        inFlight--;
        startMore();
        if (joined) collector.leave();
        push(item);
      });
    }
  };
  const solveOne = async (index: number): Promise<{ item: GpuBatchItem; joined: boolean }> => {
    let scenario: ValidatedScenario | ValidatedClassesScenario;
    try {
      scenario = validated(scenarios[index]);
    } catch (e) {
      return { item: { index, error: asError(e) }, joined: false };
    }
    // One class is the single-class solve (solveClasses.ts), which does not come to this collector.
    const classes = isValidatedClasses(scenario) ? scenario : undefined;
    const joined = scenario.solver.backend !== 'CPU' && (!classes || classes.params.classes.length > 1);
    if (joined) collector.join();
    try {
      if (classes) return { item: { index, classes: await solveClasses(index, classes, { signal, jointStage: jointOf(index) }) }, joined };
      const single = scenario as ValidatedScenario;
      const out = await solveScenarioDetailed(single, { signal, solver: joined ? solverOf(index) : undefined, warmStart: opts.warmStart?.(index, single), percentiles: false });
      return { item: { index, result: out.result, warmStart: out.warmStart }, joined };
    } catch (e) {
      return { item: { index, error: asError(e) }, joined };
    }
  };
  try {
    startMore();
    for (let yielded = 0; yielded < scenarios.length; yielded++) {
      while (done.length === 0) await new Promise<void>((r) => (wake = r));
      wake = undefined;
      yield done.shift()!;
    }
  } finally {
    // A consumer that stops early (or an abort) stops the rest.
    if (!signal.aborted) inner.abort(new AbortError('batch consumer stopped'));
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

async function openForBatch(backend: 'GPU' | 'AUTO', flags: GpuFlags): Promise<GpuContext | undefined> {
  let ctx: GpuContext | undefined;
  try {
    ctx = await acquireGpu(flags);
  } catch (e) {
    if (backend === 'GPU') throw new BackendUnavailableError(`GPU backend is not available on this server (${(e as Error).message})`);
  }
  if (!ctx && backend === 'GPU') throw new BackendUnavailableError('GPU backend is not available on this server (no WebGPU adapter)');
  return ctx;
}

/** A scenario of either form validated (a multi-class one may come validated: the service's are). */
function validated(raw: unknown): ValidatedScenario | ValidatedClassesScenario {
  if (isValidatedClasses(raw)) return raw;
  return isClassesInput(raw) ? validateClassesScenario(raw) : validateScenario(raw);
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
