import type { Policy } from '../../policy/policy.js';
import type { SimPolicy } from './types.js';

/**
 * A stationary state policy of docs/model.md §2 (greedy, static b, control limit, or the solver's
 * table): the action depends on the queue length only, and waiting lasts until the next
 * arrival, exactly as in the SMDP.
 */
export class TablePolicy implements SimPolicy {
  readonly padding = null;
  readonly sustainedBatch: number;
  private readonly actions: Int32Array;
  private readonly tail: number;

  constructor(
    policy: Policy,
    readonly name: string,
  ) {
    this.actions = policy.actions;
    this.tail = policy.tailBatch;
    this.sustainedBatch = policy.tailBatch;
  }

  /** actionAt of src/policy, inlined: table entry, else min(queue, tailBatch). */
  decide(queue: number): number {
    return queue < this.actions.length ? this.actions[queue] : queue < this.tail ? queue : this.tail;
  }

  wakeAt(): number {
    return Infinity;
  }

  onBatchDone(): void {}

  reset(): void {}
}
