import type { GpuBatchItem } from '../../solve/gpuBatch.js';
import { beforeNativeLoad } from '../../solve/nativeGate.js';
import type { BatchContext, BatchExecutor, BatchOutcome, BatchTask } from './executor.js';

/**
 * Scenarios that ask for backend GPU, solved together by the WebGPU engineer's batched
 * solve (src/solve/gpuBatch.ts: one GPU batch per round, each result certified in f64).
 * It runs in the main thread, which owns the device; the module is loaded on first use, so
 * a server that never sees backend GPU never loads the native binding. Backend AUTO stays
 * on the worker pool, where each solve applies the AUTO rule itself.
 */
export class GpuBatchExecutor implements BatchExecutor {
  readonly name = 'webgpu-batch';

  accepts(task: BatchTask): boolean {
    return task.scenario.solver.backend === 'GPU';
  }

  async *run(tasks: readonly BatchTask[], ctx: BatchContext): AsyncGenerator<BatchOutcome, void, undefined> {
    const warmed = new Set<number>();
    try {
      await beforeNativeLoad();
      const { solveScenariosOnGpu } = await import('../../solve/gpuBatch.js');
      const items: AsyncIterable<GpuBatchItem> = solveScenariosOnGpu(
        tasks.map((t) => t.input),
        {
          backend: 'GPU',
          signal: ctx.signal,
          warmStart: (i, scenario) => {
            const w = ctx.warmStarts ? ctx.nearest(scenario) : undefined;
            if (w) warmed.add(i);
            return w;
          },
        },
      );
      for await (const item of items) {
        const task = tasks[item.index];
        if ('error' in item) yield { index: task.index, ok: false, error: item.error };
        else yield { index: task.index, ok: true, result: item.result, warmStart: item.warmStart, cached: false, warmStarted: warmed.has(item.index) };
      }
    } catch (e) {
      // No adapter (BackendUnavailableError, raised up front) or a failed load: every task gets the error.
      if (ctx.signal.aborted) return;
      for (const t of tasks) yield { index: t.index, ok: false, error: e };
    }
  }
}
