import type { JointChooser, JointDecision } from './chooser.js';

/** The joint table of a classes solve (src/solve/classes/result.ts, ClassesPolicy): over n_c = 0..S_c, last class fastest. */
export interface JointTable {
  readonly maxQueue: readonly number[];
  /** Per state: the class served, −1 to wait. */
  readonly serveClass: readonly number[];
  readonly batch: readonly number[];
}

/**
 * The solver's optimal policy over n. The table covers n_c ≤ S_c; beyond it each n_c is clamped
 * to S_c (the state looked up is (min(n_1, S_1), …)). The SMDP bars waiting on a top layer, so a
 * clamped state always serves, and its batch b ≤ min(S_c, B_c) ≤ n_c is feasible. The solve's
 * tail check puts < 1e-9 of the stationary mass near the tops, so the clamp is rarely read.
 */
export class OptimalChooser implements JointChooser {
  private readonly top: Int32Array;
  private readonly stride: Int32Array;
  private readonly cls: Int32Array;
  private readonly size: Int32Array;

  constructor(
    table: JointTable,
    readonly name = 'optimal',
  ) {
    const C = table.maxQueue.length;
    this.top = Int32Array.from(table.maxQueue);
    this.stride = new Int32Array(C);
    let s = 1;
    for (let c = C - 1; c >= 0; c--) {
      this.stride[c] = s;
      s *= this.top[c] + 1;
    }
    if (table.serveClass.length !== s || table.batch.length !== s) throw new Error(`joint table: ${table.serveClass.length} states for a box of ${s}`);
    this.cls = Int32Array.from(table.serveClass);
    this.size = Int32Array.from(table.batch);
  }

  choose(n: Int32Array, _now: number, _q: unknown, out: JointDecision): void {
    let x = 0;
    for (let c = 0; c < n.length; c++) x += (n[c] < this.top[c] ? n[c] : this.top[c]) * this.stride[c];
    out.cls = this.cls[x];
    out.b = this.size[x];
  }

  onBatchDone(): void {}
  reset(): void {}
}

/**
 * Exhaustive service of the longest queue (the polling rule): serve the current class in
 * batches of min(n_c, B_c) until its queue is empty, then switch to the longest queue (ties: the
 * lowest class). Work-conserving: it never waits while anything waits.
 */
export class LongestQueueChooser implements JointChooser {
  readonly name = 'exhaustive-longest-queue';
  private current = -1;

  constructor(private readonly maxBatch: readonly number[]) {}

  choose(n: Int32Array, _now: number, _q: unknown, out: JointDecision): void {
    let c = this.current;
    if (c < 0 || n[c] === 0) {
      c = 0;
      for (let k = 1; k < n.length; k++) if (n[k] > n[c]) c = k;
    }
    this.current = c;
    out.cls = c;
    out.b = Math.min(n[c], this.maxBatch[c]);
  }

  onBatchDone(): void {}
  reset(): void {
    this.current = -1;
  }
}

/**
 * Per-class control limits served round-robin: class c is ready when n_c ≥ M_c; of the ready
 * classes the first after the last one served (cyclically) gets a batch of min(n_c, B_c); with
 * none ready the server waits for the next arrival.
 */
export class RoundRobinChooser implements JointChooser {
  readonly name: string;
  private last: number;

  constructor(
    private readonly limits: readonly number[],
    private readonly maxBatch: readonly number[],
  ) {
    this.name = `round-robin:limits=${limits.join('|')}`;
    this.last = limits.length - 1;
  }

  choose(n: Int32Array, _now: number, _q: unknown, out: JointDecision): void {
    const C = n.length;
    for (let i = 1; i <= C; i++) {
      const c = (this.last + i) % C;
      if (n[c] >= this.limits[c]) {
        this.last = c;
        out.cls = c;
        out.b = Math.min(n[c], this.maxBatch[c]);
        return;
      }
    }
  }

  onBatchDone(): void {}
  reset(): void {
    this.last = this.limits.length - 1;
  }
}
