import { shapeKey } from '../cache/canonical.js';
import type { SolveCoordinator } from '../solving/coordinator.js';
import { AsyncQueue } from '../util/asyncQueue.js';
import { ChainScheduler, orderForWarmStarts } from './chains.js';
import type { BatchContext, BatchExecutor, BatchOutcome, BatchTask } from './executor.js';

/**
 * Solves a batch on the worker pool: one lane per worker, each walking a chain of
 * neighbouring scenarios and starting every solve from the one before it (from the nearest
 * cached solution at a chain's start). Solves go through the coordinator, so a batch also
 * shares the cache and in-flight solves with single requests.
 */
export class CpuBatchExecutor implements BatchExecutor {
  readonly name = 'cpu-pool';

  constructor(
    private readonly coordinator: SolveCoordinator,
    private readonly lanes: () => number,
  ) {}

  accepts(): boolean {
    return true;
  }

  async *run(tasks: readonly BatchTask[], ctx: BatchContext): AsyncGenerator<BatchOutcome, void, undefined> {
    const scheduler = new ChainScheduler(orderForWarmStarts(tasks), this.lanes());
    const out = new AsyncQueue<BatchOutcome>();
    const lane = async (i: number): Promise<void> => {
      let last: { task: BatchTask; warm: { values: Float64Array; policy: Int32Array } } | undefined;
      for (let step = scheduler.next(i); step && !ctx.signal.aborted; step = scheduler.next(i)) {
        const { item: task, previous } = step;
        const fromPrevious =
          last && previous === last.task && shapeKey(last.task.scenario) === shapeKey(task.scenario) ? last.warm : undefined;
        try {
          const o = await this.coordinator.solve(task.scenario, {
            signal: ctx.signal,
            warmStart: !ctx.warmStarts ? 'none' : fromPrevious,
            bounded: false,
            percentiles: ctx.percentiles,
            flow: ctx.flow,
            peer: ctx.peer,
          });
          last = { task, warm: o.warmStart };
          out.push({ index: task.index, ok: true, result: o.result, warmStart: o.warmStart, cached: o.cached, warmStarted: o.warmStarted });
        } catch (error) {
          if (ctx.signal.aborted) return;
          last = undefined;
          out.push({ index: task.index, ok: false, error });
        }
      }
    };
    const lanes = Array.from({ length: Math.max(1, this.lanes()) }, (_, i) => lane(i));
    void Promise.all(lanes).then(() => out.close());
    yield* out;
  }
}
