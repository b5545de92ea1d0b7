import { describe, expect, it } from 'vitest';
import { ArrivalSource } from '../../src/sim/arrivals.js';
import { runEngine } from '../../src/sim/engine/index.js';
import { jointPolicies, type JointChooser, type JointDecision } from '../../src/sim/joint/chooser.js';
import { LongestQueueChooser, OptimalChooser, RoundRobinChooser } from '../../src/sim/joint/rules.js';
import type { ClassQueues, SimPolicy } from '../../src/sim/policies/types.js';
import { tablePolicy } from '../../src/sim/simulate.js';
import { greedyPolicy } from '../../src/policy/policy.js';

/** Joint rules on hand-built states (docs/model.md §10's state n = (n_1, …, n_C)). */

const noQueues: ClassQueues = { classes: 3, count: () => 0, at: () => NaN };
function pick(ch: JointChooser, ...n: number[]): [number, number] {
  const d: JointDecision = { cls: -1, b: 0, wake: Infinity };
  ch.choose(Int32Array.from(n), 0, noQueues, d);
  return [d.cls, d.b];
}

describe('joint choosers on hand-built states', () => {
  it('exhaustive longest queue: the argmax, then that class until it empties', () => {
    const ch = new LongestQueueChooser([4, 4, 2]);
    expect(pick(ch, 2, 5, 3)).toEqual([1, 4]);
    expect(pick(ch, 9, 1, 3)).toEqual([1, 1]); // still class 1: exhaustive
    expect(pick(ch, 9, 0, 3)).toEqual([0, 4]); // empty: switch to the longest
    expect(pick(ch, 0, 1, 3)).toEqual([2, 2]);
    ch.reset();
    expect(pick(ch, 3, 1, 3)).toEqual([0, 3]); // tie: the lowest class
  });

  it('round-robin control limits: cycles over the ready classes, waits when none is ready', () => {
    const ch = new RoundRobinChooser([2, 3], [4, 4]);
    expect(pick(ch, 2, 3)).toEqual([0, 2]);
    expect(pick(ch, 2, 3)).toEqual([1, 3]);
    expect(pick(ch, 5, 6)).toEqual([0, 4]);
    expect(pick(ch, 5, 2)).toEqual([0, 4]); // class 1 below its limit: class 0 again
    expect(pick(ch, 1, 2)).toEqual([-1, 0]);
  });

  it('the optimal table: looked up at n, and past its box at n clamped to the tops', () => {
    // S = (2, 1): states (n1, n2) at n1·2 + n2; a made-up table.
    const table = { maxQueue: [2, 1], serveClass: [-1, 1, 0, 1, 0, 0], batch: [0, 1, 1, 1, 2, 2] };
    const ch = new OptimalChooser(table);
    expect(pick(ch, 0, 1)).toEqual([1, 1]);
    expect(pick(ch, 1, 1)).toEqual([1, 1]);
    expect(pick(ch, 2, 0)).toEqual([0, 2]);
    expect(pick(ch, 7, 4)).toEqual([0, 2]); // clamped to (2, 1)
    expect(() => new OptimalChooser({ ...table, batch: [0] })).toThrow(/states/);
  });

  it('the per-class adapters serve only the chosen class, deciding once per epoch', () => {
    let calls = 0;
    const ch: JointChooser = {
      name: 'fixed',
      choose: (_n, _t, _q, out) => {
        calls++;
        out.cls = 1;
        out.b = 2;
      },
      onBatchDone: () => {},
      reset: () => {},
    };
    const counts = [3, 2];
    const P = jointPolicies(ch, [4, 4]);
    for (const x of P) x.bindClasses!({ classes: 2, count: (c) => counts[c], at: () => 0 });
    expect(P.map((x, c) => x.decide(counts[c], 0, 0))).toEqual([0, 2]);
    expect(calls).toBe(1);
    counts[0] = 0; // only class 1 waits: its adapter is asked first and decides
    expect(P[1].decide(2, 1, 0)).toBe(2);
    expect(calls).toBe(2);
  });
});

describe('the engine and joint rules', () => {
  const l = Float64Array.of(0, 1, 1);
  const law = { meanService: l, distribution: 'DETERMINISTIC' as const, cv: 0 };
  const opts = { requests: 10, warmup: 0, ciBatches: 2, seed: 1, maxQueued: 1024, overflow: () => new Error('overflow') };
  const trace = () => [ArrivalSource.trace(Float64Array.of(0)), ArrivalSource.trace(Float64Array.of(1))];

  it('refuses a joint rule with mixed batching, and a rule built for another number of classes', () => {
    const server = { maxBatchSize: 2, service: [law, law], busyPower: new Float64Array(3), idlePower: 0 };
    const P = jointPolicies(new LongestQueueChooser([2, 2]), [2, 2]);
    expect(() => runEngine({ servers: [server], mixed: true }, [[P[0]]], trace(), null, opts)).toThrow(/per-class batching/);
    const three = jointPolicies(new LongestQueueChooser([2, 2, 2]), [2, 2, 2]);
    expect(() => runEngine({ servers: [server], mixed: false }, [three.slice(0, 2)], trace(), null, opts)).toThrow(/built for 3 classes/);
  });
});

describe('FIFO by oldest request: per-class greedy policies in the engine', () => {
  it('serves the class whose head arrived first', () => {
    // Deterministic l(b) = 1 s for both classes. t=0: class 0's {0} alone → 0..1. At 1: class 0
    // holds {0.1}, class 1 {0.05}: class 1 first (1..2), then class 0 (2..3), then class 1's {2.5} (3..4).
    const l = Float64Array.of(0, 1, 1);
    const law = { meanService: l, distribution: 'DETERMINISTIC' as const, cv: 0 };
    const served: [number, number][] = [];
    const greedy: SimPolicy[] = [0, 1].map(() => tablePolicy(greedyPolicy(2), 2));
    runEngine(
      { servers: [{ maxBatchSize: 2, service: [law, law], busyPower: new Float64Array(3), idlePower: 0 }], mixed: false },
      [greedy],
      [ArrivalSource.trace(Float64Array.of(0, 0.1)), ArrivalSource.trace(Float64Array.of(0.05, 2.5))],
      null,
      { requests: 10, warmup: 0, ciBatches: 2, seed: 1, maxQueued: 1024, overflow: () => new Error('overflow'), onServed: (_tag, c, _a, r) => served.push([c, r]) },
    );
    expect(served).toEqual([
      [0, 1],
      [1, 2 - 0.05],
      [0, 3 - 0.1],
      [1, 4 - 2.5],
    ]);
  });
});
