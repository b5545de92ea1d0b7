import { describe, expect, it } from 'vitest';
import { parsePolicySpec } from '../../src/policy/policy.js';
import { AimdPolicy } from '../../src/sim/policies/aimd.js';
import { TfServingPolicy } from '../../src/sim/policies/tfServing.js';
import { TritonPolicy } from '../../src/sim/policies/triton.js';
import type { SimPolicy } from '../../src/sim/policies/types.js';
import { simulate, tablePolicy } from '../../src/sim/simulate.js';
import { TINY_TRACE, tinyParams } from './tiny.js';

/**
 * Hand-traced runs on the tiny scenario (l(b) = b + 1 s, deterministic; P(b) = 10b + 100 W,
 * P0 = 5 W) with arrivals at 0, 0.5, 1, 5, 5.2, 20 and no warm-up. Each expectation was
 * worked out on paper from the rules of docs/model.md §1–§2 and of the serving system; the comment
 * lists the batches as (start → end: requests served, their response times).
 */
const p = tinyParams();
const run = (policy: SimPolicy, trace = TINY_TRACE, warmup = 0) => simulate(p, policy, { trace, warmup });
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('engine semantics, traced by hand', () => {
  it('greedy: decisions at completions and at arrivals while idle; arrivals during service wait', () => {
    // 0→2: {0} R=2 | 2→5: {0.5, 1} R=4.5, 4 | 5→7: {5} R=2 (arrived exactly at the completion)
    // | 7→9: {5.2} R=3.8 | 20→22: {20} R=2
    const r = run(tablePolicy(parsePolicySpec('greedy', 4), 4));
    expect(r.meanResponseTime).toBeCloseTo(mean([2, 4.5, 4, 2, 3.8, 2]), 12);
    expect(r.batchSizeHistogram).toEqual([0, 4, 1]);
    expect(r.simulatedSeconds).toBeCloseTo(22, 12);
    expect(r.utilization).toBeCloseTo(11 / 22, 12);
    // Energy: four batches of 1 (110 W · 2 s), one of 2 (120 W · 3 s), idle 11 s at 5 W.
    expect(r.meanPower).toBeCloseTo((4 * 220 + 360 + 55) / 22, 10);
    expect(r.requests).toBe(6);
    expect(r.stop).toBe('arrivals-exhausted');
    expect(r.percentiles.max).toBeCloseTo(4.5, 12);
  });

  it('control-limit:2 waits (for the next arrival) below two requests', () => {
    // 0.5→3.5: {0, 0.5} R=3.5, 3 | 5→8: {1, 5} R=7, 3 | 20→23: {5.2, 20} R=17.8, 3
    const r = run(tablePolicy(parsePolicySpec('control-limit:2', 4), 4));
    expect(r.meanResponseTime).toBeCloseTo(mean([3.5, 3, 7, 3, 17.8, 3]), 12);
    expect(r.batchSizeHistogram).toEqual([0, 0, 3]);
  });

  it('triton without preferred sizes: serve when the oldest has waited max_queue_delay', () => {
    // delay 1.5 s: 1.5→5.5: {0, 0.5, 1} R=5.5, 5, 4.5 | 6.5→9.5: {5, 5.2} R=4.5, 4.3 | 21.5→23.5: {20} R=3.5
    const r = run(new TritonPolicy({ maxQueueDelay: 1.5, preferredBatchSizes: [], maxBatchSize: 4 }));
    expect(r.meanResponseTime).toBeCloseTo(mean([5.5, 5, 4.5, 4.5, 4.3, 3.5]), 12);
    expect(r.batchSizeHistogram).toEqual([0, 1, 1, 1]);
  });

  it('triton with a preferred size sends it at once, and the delay still bounds the wait', () => {
    // preferred 2, delay 10 s: 0.5→3.5: {0, 0.5} R=3.5, 3 | 5→8: {1, 5} R=7, 3
    // | 15.2→17.2: {5.2} R=12 (delay ran out while idle) | 30→32: {20} R=12 (delay, after the trace)
    const r = run(new TritonPolicy({ maxQueueDelay: 10, preferredBatchSizes: [2], maxBatchSize: 4 }));
    expect(r.meanResponseTime).toBeCloseTo(mean([3.5, 3, 7, 3, 12, 12]), 12);
    expect(r.batchSizeHistogram).toEqual([0, 2, 2]);
  });

  it('triton sends max_batch_size at once when that many wait', () => {
    // delay 100 s, max 2: 0.5→3.5: {0, 0.5} | 5→8: {1, 5} | 100+5.2→: {5.2} … queue of 2 never forms again
    const r = run(new TritonPolicy({ maxQueueDelay: 100, preferredBatchSizes: [], maxBatchSize: 2 }));
    expect(r.batchSizeHistogram).toEqual([0, 0, 3]);
    // 20 arrives while 5.2 waits (its delay runs to 105.2): {5.2, 20} at 20 → 23.
    expect(r.meanResponseTime).toBeCloseTo(mean([3.5, 3, 7, 3, 17.8, 3]), 12);
  });

  it('tf-serving pads to allowed_batch_sizes and pays for the padded size', () => {
    // timeout 0, allowed 2|4: 0→3: {0} (padded to 2) R=3 | 3→6: {0.5, 1} R=5.5, 5 | 6→9: {5, 5.2} R=4, 3.8
    // | 20→23: {20} (padded) R=3
    const r = run(new TfServingPolicy({ batchTimeout: 0, maxBatchSize: 4, allowedBatchSizes: [2, 4] }));
    expect(r.meanResponseTime).toBeCloseTo(mean([3, 5.5, 5, 4, 3.8, 3]), 12);
    expect(r.batchSizeHistogram).toEqual([0, 2, 2]);
    // Four batches computed at size 2: 12 s at 120 W, and 11 s idle at 5 W, over 23 s.
    expect(r.meanPower).toBeCloseTo((12 * 120 + 11 * 5) / 23, 10);
  });

  it('tf-serving with a timeout behaves as the open-batch rule says', () => {
    // timeout 1.5 s, max 4: 1.5→5.5: {0, 0.5, 1} | 6.5→9.5: {5, 5.2} | 21.5→23.5: {20}
    const r = run(new TfServingPolicy({ batchTimeout: 1.5, maxBatchSize: 4, allowedBatchSizes: [] }));
    expect(r.meanResponseTime).toBeCloseTo(mean([5.5, 5, 4.5, 4.5, 4.3, 3.5]), 12);
  });

  it('aimd grows the cap after full batches within the objective and backs off after a slow one', () => {
    // slo 2.5 s, start 1, step 1, backoff 0.5 on arrivals 0, 0.1, 0.2, 0.3:
    // 0→2: {0} T=2 ok, full → cap 2 | 2→5: {0.1, 0.2} T=3 > slo → cap 1 | 5→7: {0.3} R=6.7
    const trace = Float64Array.of(0, 0.1, 0.2, 0.3);
    const aimd = new AimdPolicy({ latencySlo: 2.5, additiveIncrease: 1, multiplicativeDecrease: 0.5, maxBatchSize: 4, initialBatchSize: 1 });
    const r = run(aimd, trace);
    expect(r.meanResponseTime).toBeCloseTo(mean([2, 4.9, 4.8, 6.7]), 12);
    expect(r.batchSizeHistogram).toEqual([0, 2, 1]);
    // A generous objective: 0→2: {0} → cap 2 | 2→5: {0.1, 0.2} → cap 3 | 5→7: {0.3}.
    const loose = new AimdPolicy({ latencySlo: 100, additiveIncrease: 1, multiplicativeDecrease: 0.9, maxBatchSize: 4, initialBatchSize: 1 });
    const r2 = run(loose, trace);
    expect(r2.meanResponseTime).toBeCloseTo(mean([2, 4.9, 4.8, 6.7]), 12);
    // The same object runs again from its initial cap (reset).
    expect(run(loose, trace).meanResponseTime).toBe(r2.meanResponseTime);
  });

  it('warm-up: the first requests are served but not measured, and the window starts at a batch start', () => {
    // Greedy with warm-up 2: batches {0} and {0.5, 1} are warm-up (3 requests); the
    // default target is 6 − 2·2 = 2 requests: {5} R=2 and {5.2} R=3.8, stopping at t = 20.
    const r = run(tablePolicy(parsePolicySpec('greedy', 4), 4), TINY_TRACE, 2);
    expect(r.warmupRequests).toBe(3);
    expect(r.requests).toBe(2);
    expect(r.meanResponseTime).toBeCloseTo(2.9, 12);
    expect(r.simulatedSeconds).toBeCloseTo(15, 12);
    expect(r.utilization).toBeCloseTo(4 / 15, 12);
    expect(r.stop).toBe('requests');
  });

  it('refuses a policy that breaks the contract', () => {
    const bad: SimPolicy = {
      name: 'bad',
      sustainedBatch: 1,
      padding: null,
      decide: (q) => q + 1,
      wakeAt: () => Infinity,
      onBatchDone: () => undefined,
      reset: () => undefined,
    };
    expect(() => run(bad)).toThrow(/chose a batch of 2 with 1 waiting/);
  });
});
