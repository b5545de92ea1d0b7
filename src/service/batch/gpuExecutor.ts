import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import { autoJointStage, gpuSolvesWork } from '../../solve/backends.js';
import type { BatchRecord, JobKind } from '../../solve/gpu/collector.js';
import type { GpuBatchItem } from '../../solve/gpuBatch.js';
import { beforeNativeLoad } from '../../solve/nativeGate.js';
import type { JointGpuStage } from '../../solve/types.js';
import { classesCanonicalKey } from '../cache/classesKey.js';
import { groupByKey } from './duplicates.js';
import type { BatchContext, BatchExecutor, BatchOutcome, BatchTask, ClassesBatchOutcome, ClassesBatchTask } from './executor.js';

/** What the WebGPU batch reports (the service's metrics listen here). */
export interface GpuBatchEvents {
  /** A scenario identical to one before it in the batch: it gets that one's solve, as a caller joining an identical running solve does. */
  onShared?(): void;
  /** A GPU batch ran: its model kind, its jobs, and how many of its scenarios had no job in an earlier batch of the call. */
  onGpuBatch?(batch: { readonly kind: JobKind; readonly size: number; readonly newScenarios: number }): void;
}

/**
 * Scenarios that ask for backend GPU, solved together by the WebGPU engineer's batched
 * solve (src/solve/gpuBatch.ts: GPU batches shared per round, each result certified in f64),
 * multi-class ones (two or three classes) beside the single-class ones, their joint f32 stages
 * in the same rounds. Identical scenarios (one canonical key, the solution cache's: cache/canonical.ts,
 * classesKey.ts) are solved once and each gets the answer. It runs in the main thread, which owns
 * the device; the module is loaded on first use, so a server that never sees backend GPU never
 * loads the native binding. Multi-class scenarios with backend AUTO come here where the AUTO rule
 * sends their first box to the GPU (each box then decided by the same rule, autoJointStage); the other
 * AUTO ones stay on the worker pool, where each solve applies the AUTO rule itself.
 */
export class GpuBatchExecutor implements BatchExecutor {
  readonly name = 'webgpu-batch';

  constructor(private readonly events: GpuBatchEvents = {}) {}

  accepts(task: BatchTask): boolean {
    return task.scenario.solver.backend === 'GPU';
  }

  /**
   * Two or three classes with backend GPU; with AUTO, where a single Solve would take the GPU for the
   * box it starts from (gpuSolvesWork: the AUTO rule on this thread's adapter; none: the pool). One
   * class is the single-class solve (no joint stage to batch): it stays with the CPU pool's classes path.
   */
  acceptsClasses(task: ClassesBatchTask): boolean | Promise<boolean> {
    const { solver, params } = task.scenario;
    if (params.classes.length < 2) return false;
    if (solver.backend === 'GPU') return true;
    return solver.backend === 'AUTO' && task.firstBoxWork !== undefined && gpuSolvesWork('AUTO', task.firstBoxWork);
  }

  async *run(tasks: readonly BatchTask[], ctx: BatchContext, classes: readonly ClassesBatchTask[] = []): AsyncGenerator<BatchOutcome | ClassesBatchOutcome, void, undefined> {
    const single = groupByKey(tasks, (t) => t.key);
    const joint = groupByKey(classes, (t) => classesCanonicalKey(t.scenario));
    for (const g of [...single, ...joint]) for (let k = 1; k < g.length; k++) this.events.onShared?.();
    const warmed = new Set<number>();
    const classesFacts = new Map<number, { cached: boolean; warmStarted: boolean }>();
    const n = single.length;
    try {
      await beforeNativeLoad();
      const { solveScenariosOnGpu } = await import('../../solve/gpuBatch.js');
      const items: AsyncIterable<GpuBatchItem> = solveScenariosOnGpu([...single.map((g) => g[0].input), ...joint.map((g) => g[0].scenario)], {
        backend: 'GPU',
        signal: ctx.signal,
        warmStart: (i, scenario) => {
          const w = ctx.warmStarts ? ctx.nearest(scenario) : undefined;
          if (w) warmed.add(i);
          return w;
        },
        onBatch: firstTimes(this.events),
        ...(ctx.solveClasses ? { solveClasses: solveThrough(ctx.solveClasses, classesFacts) } : {}),
      });
      for await (const item of items) {
        if (item.index >= n) {
          for (const { index } of joint[item.index - n]) {
            if ('error' in item) yield { classes: true, index, ok: false, error: item.error };
            else if ('classes' in item) yield { classes: true, index, ok: true, result: item.classes, cached: false, warmStarted: false, ...classesFacts.get(item.index) };
          }
          continue;
        }
        for (const { index } of single[item.index]) {
          if ('error' in item) yield { index, ok: false, error: item.error };
          else if ('result' in item) yield { index, ok: true, result: item.result, warmStart: item.warmStart, cached: false, warmStarted: warmed.has(item.index) };
        }
      }
    } catch (e) {
      // No adapter (BackendUnavailableError, raised up front) or a failed load: every task gets the error.
      if (ctx.signal.aborted) return;
      for (const t of tasks) yield { index: t.index, ok: false, error: e };
      for (const t of classes) yield { classes: true, index: t.index, ok: false, error: e };
    }
  }
}

/**
 * The batch's classes solves through the service's (its cache, warm starts, bound on states), their
 * facts kept by item; a backend-AUTO one puts a box on the batch's stage where the AUTO rule sends it to the GPU.
 */
function solveThrough(solve: NonNullable<BatchContext['solveClasses']>, facts: Map<number, { cached: boolean; warmStarted: boolean }>) {
  return async (i: number, scenario: ValidatedClassesScenario, run: { readonly signal: AbortSignal; readonly jointStage: JointGpuStage }) => {
    const o = await solve(scenario, scenario.solver.backend === 'AUTO' ? { ...run, jointStage: autoJointStage(run.jointStage) } : run);
    facts.set(i, { cached: o.cached, warmStarted: o.warmStarted });
    return o.result;
  };
}

/** The collector's batch records as events: each scenario counted in the first batch that holds a job of it. */
function firstTimes(events: GpuBatchEvents): (b: BatchRecord) => void {
  const seen = new Set<number>();
  return (b) => {
    const before = seen.size;
    for (const i of b.scenarios) seen.add(i);
    events.onGpuBatch?.({ kind: b.kind, size: b.size, newScenarios: seen.size - before });
  };
}
