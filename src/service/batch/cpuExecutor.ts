import { shapeKey } from '../cache/canonical.js';
import type { SolveCoordinator } from '../solving/coordinator.js';
import { AsyncQueue, mergeAsync } from '../util/asyncQueue.js';
import { ChainScheduler, orderForWarmStarts } from './chains.js';
import type { BatchContext, BatchExecutor, BatchOutcome, BatchTask, ClassesBatchOutcome, ClassesBatchTask } from './executor.js';

/** What one lane does with its items: a solve per item (it may keep state between them, e.g. the last solution), and the outcome of one that threw. */
interface LaneRunner<T, O> {
  solve(item: T, previous: T | undefined): Promise<O>;
  failed(item: T, error: unknown): O;
}

/**
 * Solves a batch on the worker pool: one lane per worker, each walking a chain of
 * neighbouring scenarios and starting every solve from the one before it (from the nearest
 * cached solution at a chain's start). Solves go through the coordinator, so a batch also
 * shares the cache and in-flight solves with single requests. A batch's multi-class
 * scenarios go through the same lanes (`solveClasses`), in index order.
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

  /** Single-class tasks on the lanes, and any multi-class ones beside them (solveClasses). */
  run(tasks: readonly BatchTask[], ctx: BatchContext, classes: readonly ClassesBatchTask[] = []): AsyncIterable<BatchOutcome | ClassesBatchOutcome> {
    const single = this.runSingle(tasks, ctx);
    return classes.length > 0 ? mergeAsync<BatchOutcome | ClassesBatchOutcome>([single, this.solveClasses(classes, ctx)]) : single;
  }

  private runSingle(tasks: readonly BatchTask[], ctx: BatchContext): AsyncGenerator<BatchOutcome, void, undefined> {
    return this.inLanes<BatchTask, BatchOutcome>(orderForWarmStarts(tasks), ctx.signal, () => {
      let last: { task: BatchTask; warm: { values: Float64Array; policy: Int32Array } } | undefined;
      return {
        solve: async (task, previous) => {
          const fromPrevious =
            last && previous === last.task && shapeKey(last.task.scenario) === shapeKey(task.scenario) ? last.warm : undefined;
          const o = await this.coordinator.solve(task.scenario, {
            signal: ctx.signal,
            warmStart: !ctx.warmStarts ? 'none' : fromPrevious,
            bounded: false,
            percentiles: ctx.percentiles,
            flow: ctx.flow,
            peer: ctx.peer,
          });
          last = { task, warm: o.warmStart };
          return { index: task.index, ok: true, result: o.result, warmStart: o.warmStart, cached: o.cached, warmStarted: o.warmStarted };
        },
        failed: (task, error) => {
          last = undefined;
          return { index: task.index, ok: false, error };
        },
      };
    });
  }

  /** Multi-class scenarios (docs/model.md §10): the pool's classes job, as batch work (no queue bound), or the classes cache; a solve starts from the last solved scenario of its shape. */
  solveClasses(tasks: readonly ClassesBatchTask[], ctx: Pick<BatchContext, 'signal' | 'flow' | 'peer'>): AsyncGenerator<ClassesBatchOutcome, void, undefined> {
    return this.inLanes<ClassesBatchTask, ClassesBatchOutcome>(tasks, ctx.signal, () => ({
      solve: async (task) => ({
        classes: true,
        index: task.index,
        ok: true,
        ...(await this.coordinator.solveClasses(task.scenario, { signal: ctx.signal, bounded: false, flow: ctx.flow, peer: ctx.peer })),
      }),
      failed: (task, error) => ({ classes: true, index: task.index, ok: false, error }),
    }));
  }

  /** Items on one lane per worker (chains of neighbours, work stealing), outcomes as each finishes; a fired signal stops every lane. */
  private async *inLanes<T, O>(ordered: readonly T[], signal: AbortSignal, runner: () => LaneRunner<T, O>): AsyncGenerator<O, void, undefined> {
    const scheduler = new ChainScheduler(ordered, this.lanes());
    const out = new AsyncQueue<O>();
    const lane = async (i: number): Promise<void> => {
      const r = runner();
      for (let step = scheduler.next(i); step && !signal.aborted; step = scheduler.next(i)) {
        try {
          out.push(await r.solve(step.item, step.previous));
        } catch (error) {
          if (signal.aborted) return;
          out.push(r.failed(step.item, error));
        }
      }
    };
    const lanes = Array.from({ length: Math.max(1, this.lanes()) }, (_, i) => lane(i));
    void Promise.all(lanes).then(() => out.close());
    yield* out;
  }
}
