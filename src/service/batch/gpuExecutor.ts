import type { GpuBatchItem } from '../../solve/gpuBatch.js';
import { beforeNativeLoad } from '../../solve/nativeGate.js';
import type { BatchContext, BatchExecutor, BatchOutcome, BatchTask, ClassesBatchOutcome, ClassesBatchTask } from './executor.js';

/**
 * Scenarios that ask for backend GPU, solved together by the WebGPU engineer's batched
 * solve (src/solve/gpuBatch.ts: GPU batches shared per round, each result certified in f64),
 * multi-class ones (two or three classes) beside the single-class ones, their joint f32 stages
 * in the same rounds. It runs in the main thread, which owns the device; the module is loaded on
 * first use, so a server that never sees backend GPU never loads the native binding. Backend
 * AUTO stays on the worker pool, where each solve applies the AUTO rule itself.
 */
export class GpuBatchExecutor implements BatchExecutor {
  readonly name = 'webgpu-batch';

  accepts(task: BatchTask): boolean {
    return task.scenario.solver.backend === 'GPU';
  }

  /** One class is the single-class solve (no joint stage to batch): it stays with the CPU pool's classes path. */
  acceptsClasses(task: ClassesBatchTask): boolean {
    return task.scenario.solver.backend === 'GPU' && task.scenario.params.classes.length > 1;
  }

  async *run(tasks: readonly BatchTask[], ctx: BatchContext, classes: readonly ClassesBatchTask[] = []): AsyncGenerator<BatchOutcome | ClassesBatchOutcome, void, undefined> {
    const warmed = new Set<number>();
    const classesFacts = new Map<number, { cached: boolean; warmStarted: boolean }>();
    const n = tasks.length;
    try {
      await beforeNativeLoad();
      const { solveScenariosOnGpu } = await import('../../solve/gpuBatch.js');
      const items: AsyncIterable<GpuBatchItem> = solveScenariosOnGpu([...tasks.map((t) => t.input), ...classes.map((t) => t.scenario)], {
        backend: 'GPU',
        signal: ctx.signal,
        warmStart: (i, scenario) => {
          const w = ctx.warmStarts ? ctx.nearest(scenario) : undefined;
          if (w) warmed.add(i);
          return w;
        },
        ...(ctx.solveClasses ? { solveClasses: solveThrough(ctx.solveClasses, classesFacts) } : {}),
      });
      for await (const item of items) {
        if (item.index >= n) {
          const index = classes[item.index - n].index;
          if ('error' in item) yield { classes: true, index, ok: false, error: item.error };
          else if ('classes' in item) yield { classes: true, index, ok: true, result: item.classes, cached: false, warmStarted: false, ...classesFacts.get(item.index) };
          continue;
        }
        const task = tasks[item.index];
        if ('error' in item) yield { index: task.index, ok: false, error: item.error };
        else if ('result' in item) yield { index: task.index, ok: true, result: item.result, warmStart: item.warmStart, cached: false, warmStarted: warmed.has(item.index) };
      }
    } catch (e) {
      // No adapter (BackendUnavailableError, raised up front) or a failed load: every task gets the error.
      if (ctx.signal.aborted) return;
      for (const t of tasks) yield { index: t.index, ok: false, error: e };
      for (const t of classes) yield { classes: true, index: t.index, ok: false, error: e };
    }
  }
}

/** The batch's classes solves through the service's (its cache, warm starts, bound on states), their facts kept by item. */
function solveThrough(solve: NonNullable<BatchContext['solveClasses']>, facts: Map<number, { cached: boolean; warmStarted: boolean }>) {
  return async (i: number, ...args: Parameters<typeof solve>) => {
    const o = await solve(...args);
    facts.set(i, { cached: o.cached, warmStarted: o.warmStarted });
    return o.result;
  };
}
