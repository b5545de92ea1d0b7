import type { ClassQueues, SimPolicy } from '../policies/types.js';

/**
 * A joint rule over several classes sharing one server (docs/model.md §10): at a decision epoch
 * it sees every class's waiting count n = (n_1, …, n_C) and chooses to wait or to serve b of one
 * class c. `jointPolicies` turns it into the per-class SimPolicies the engine runs, so the
 * engine's loop stays the one loop of src/sim/engine/run.ts.
 */
export interface JointChooser {
  readonly name: string;
  /**
   * The decision at state n (some n_c > 0) at time `now`, into `out`: out.cls = −1 to wait
   * (until the next arrival, or out.wake), else the class and 1 ≤ out.b ≤ min(n_c, B_c).
   * `queues` gives the waiting requests' arrival times for rules that need them.
   */
  choose(n: Int32Array, now: number, queues: ClassQueues, out: JointDecision): void;
  /** Told at each batch completion: the class, size and service time of the batch. */
  onBatchDone(cls: number, size: number, serviceTime: number): void;
  /** Back to the initial state, so that one run repeats itself. */
  reset(): void;
}

export interface JointDecision {
  cls: number;
  b: number;
  /** While waiting: absolute time to decide again (Infinity: at the next arrival). */
  wake: number;
}

/**
 * The per-class policies of a joint rule on one server: policies[c] serves class c exactly when
 * the chooser picks c. At each epoch the engine asks them in ascending class order, skipping
 * empty queues, at the same state (SimPolicy.bindClasses); the first one asked is the lowest
 * class with a queue, so that one reads the state and asks the chooser, and the others answer
 * from the same decision. Only one class serves, so the engine's oldest-head rule among serving
 * classes never overrides the chooser.
 */
export function jointPolicies(chooser: JointChooser, maxBatch: readonly number[]): SimPolicy[] {
  const C = maxBatch.length;
  const n = new Int32Array(C);
  const d: JointDecision = { cls: -1, b: 0, wake: Infinity };
  let view: ClassQueues | null = null;
  const bind = (q: ClassQueues): void => {
    if (q.classes !== C) throw new Error(`joint rule ${chooser.name} was built for ${C} classes; the server has ${q.classes}`);
    view = q;
  };
  const decide = (c: number, now: number): void => {
    const q = view;
    if (q === null) throw new Error(`joint rule ${chooser.name} runs only in the engine (its queues were never bound)`);
    let first = -1;
    for (let k = 0; k < C; k++) {
      n[k] = q.count(k);
      if (first < 0 && n[k] > 0) first = k;
    }
    if (c !== first) return;
    d.cls = -1;
    d.b = 0;
    d.wake = Infinity;
    chooser.choose(n, now, q, d);
  };
  return maxBatch.map((B, c) => ({
    name: `${chooser.name}[class ${c}]`,
    sustainedBatch: B,
    padding: null,
    bindClasses: bind,
    decide: (_queue: number, now: number): number => {
      decide(c, now);
      return d.cls === c ? d.b : 0;
    },
    wakeAt: (): number => (d.cls < 0 && n.findIndex((v) => v > 0) === c ? d.wake : Infinity),
    onBatchDone: (size: number, serviceTime: number): void => chooser.onBatchDone(c, size, serviceTime),
    reset: (): void => {
      if (c === 0) chooser.reset();
    },
  }));
}
