import { describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import { poissonArrivalTimes } from '../../src/sim/arrivals.js';
import { buildSimPolicy, parseSimPolicySpec } from '../../src/sim/policySpec.js';
import { RayServePolicy } from '../../src/sim/policies/rayServe.js';
import { TfServingPolicy } from '../../src/sim/policies/tfServing.js';
import { TorchServePolicy } from '../../src/sim/policies/torchServe.js';
import { simulate } from '../../src/sim/simulate.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * TorchServe's and Ray Serve's batchers (src/sim/policies/torchServe.ts, rayServe.ts), traced by
 * hand on a millisecond scenario: B = 4, deterministic l(b) = (b + 1) ms. Times below are in ms;
 * each comment lists the batches as start → end: {arrivals} response times.
 */
const ms = (xs: number[]) => Float64Array.from(xs, (x) => x / 1e3);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length / 1e3;
const small = validateScenario({
  arrivalRate: 500,
  maxBatchSize: 4,
  serviceTime: { linear: { perItem: 0.001, base: 0.001 }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 5, busyLinear: { perItem: 10, base: 100 } },
  objective: { latencyWeight: 1, powerWeight: 0.01 },
}).params;
const run = (policy: Parameters<typeof simulate>[1], arrivals: number[]) => simulate(small, policy, { trace: ms(arrivals), warmup: 0 });

/** The reference case at λ = 4000 /s, and a Poisson trace of it (a trace skips the up-front stability check). */
const spec = validateScenario(specScenario(4000, 1e-3)).params;
const heavyTrace = poissonArrivalTimes(4000, 40_000, 9);
const largest = (h: number[]) => h.length - 1;

describe('TorchServe (Model.pollBatch), traced by hand', () => {
  it('charges maxBatchDelay in whole ticks of the millisecond clock, from the first job taken', () => {
    // delay 2 ms. 0.3: first job (tick 0), poll until 2.3 | 1.2: tick 1, poll 1 ms more, until 2.2
    // | 2.1: tick 2 = delay → stop: 2.1→6.1 {0.3, 1.2, 2.1} 5.8, 4.9, 4.0
    // | 6.1: take 2.6 (tick 6), poll until 8.1, nothing: 8.1→10.1 {2.6} 7.5
    // | 10.1: take 9.0 and 9.5 at once, poll until 12.1: 12.1→15.1 {9.0, 9.5} 6.1, 5.6 | 20→22→24 {20} 4.0
    const r = run(new TorchServePolicy({ maxBatchDelayMs: 2, batchSize: 4 }), [0.3, 1.2, 2.1, 2.6, 9.0, 9.5, 20]);
    expect(r.meanResponseTime).toBeCloseTo(mean([5.8, 4.9, 4.0, 7.5, 6.1, 5.6, 4.0]), 12);
    expect(r.batchSizeHistogram).toEqual([0, 2, 1, 1]);
    // A clock that ran in real time would still be collecting at 2.1 and serve the first three at 2.3.
    const tf = run(new TfServingPolicy({ batchTimeout: 0.002, maxBatchSize: 4, allowedBatchSizes: [] }), [0.3, 1.2, 2.1, 2.6, 9.0, 9.5, 20]);
    expect(tf.meanResponseTime).not.toBeCloseTo(r.meanResponseTime, 6);
  });

  it('stops a full batch at once', () => {
    // delay 100 ms, batchSize 2: 0→ poll | 0.5 fills it: 0.5→3.5 {0, 0.5} 3.5, 3.0 | 3.5: {1, 1.5} queued, full: 3.5→6.5 5.5, 5.0
    const r = run(new TorchServePolicy({ maxBatchDelayMs: 100, batchSize: 2 }), [0, 0.5, 1, 1.5]);
    expect(r.meanResponseTime).toBeCloseTo(mean([3.5, 3.0, 5.5, 5.0]), 12);
  });

  it('maxBatchDelay 0 serves at most 2 however many wait', () => {
    // 0→2 {0} 2.0 | 2: four wait, poll(0) takes one more, then maxDelay ≤ 0: 2→5 {0.1, 0.2} 4.9, 4.8 | 5→8 {0.3, 0.4} 7.7, 7.6
    const r = run(new TorchServePolicy({ maxBatchDelayMs: 0, batchSize: 4 }), [0, 0.1, 0.2, 0.3, 0.4]);
    expect(r.meanResponseTime).toBeCloseTo(mean([2.0, 4.9, 4.8, 7.7, 7.6]), 12);
    expect(r.batchSizeHistogram).toEqual([0, 1, 2]);
  });

  it('the trap: maxBatchDelay 0 at 4000 /s is refused as unstable, and overloads a replayed trace', () => {
    const zero = new TorchServePolicy({ maxBatchDelayMs: 0, batchSize: 32 });
    expect(() => simulate(spec, zero, { requests: 10_000 })).toThrow(/unstable: for long queues it serves batches of 2, which clear at most 2\/l\(2\) = 919\.54\d* \/s < arrivalRate 4000/);
    const r = simulate(spec, zero, { trace: heavyTrace });
    expect(largest(r.batchSizeHistogram)).toBe(2);
    // Busy all the time at 2 per l(2) = 2.1750 ms: 919.5 /s served of 4000 offered, the queue growing throughout.
    expect(r.utilization).toBeGreaterThan(0.999);
    expect(r.throughput).toBeCloseTo(2 / 0.0021750, -1);
    expect(r.meanResponseTime).toBeGreaterThan(5);
    // 1 ms is no trap: full batches under the same load.
    const one = simulate(spec, new TorchServePolicy({ maxBatchDelayMs: 1, batchSize: 32 }), { trace: heavyTrace });
    expect(largest(one.batchSizeHistogram)).toBe(32);
    expect(one.meanResponseTime).toBeLessThan(0.02);
  });
});

describe('Ray Serve (@serve.batch on one replica), traced by hand', () => {
  it('forms batches while one is in service, admits at most max_ongoing_requests, and serves batches in order', () => {
    // timeout 1 ms, max_batch_size 3, max_ongoing_requests 4.
    // 0: admitted, batch opens (until 1.0) | 0.5 joins | 1.0 closes: 1.0→4.0 {0, 0.5} 4.0, 3.5 (held 2)
    // | 2.0, 2.2 admitted (held 4), a batch opens at 2.0 and closes at 3.0 while the first runs
    // | 2.4, 2.6, 2.8 wait upstream (the replica is full)
    // | 4.0: {2.0, 2.2} starts (4.0→7.0: 5.0, 4.8); two slots free: 2.4, 2.6 enter together, open a batch until 5.0
    // | 7.0: {2.4, 2.6} starts (7.0→10.0: 7.6, 7.4); 2.8 enters, batch until 8.0 | 10.0→12.0 {2.8} 9.2
    const r = run(new RayServePolicy({ batchWaitTimeout: 0.001, maxBatchSize: 3, maxOngoingRequests: 4 }), [0, 0.5, 2.0, 2.2, 2.4, 2.6, 2.8]);
    expect(r.meanResponseTime).toBeCloseTo(mean([4.0, 3.5, 5.0, 4.8, 7.6, 7.4, 9.2]), 12);
    expect(r.batchSizeHistogram).toEqual([0, 1, 3]);
  });

  it('closes a batch as soon as it holds max_batch_size, the rest of a burst opening the next', () => {
    // timeout 10 ms, max 2, ongoing 100: 0, 0.5 fill a batch at 0.5: 0.5→3.5 {0, 0.5} 3.5, 3.0
    // | 1.0, 1.2 fill the next at 1.2 (in service at 3.5: 3.5→6.5, 5.5, 5.3) | 1.4 opens one until 11.4: 11.4→13.4 {1.4} 12.0
    const r = run(new RayServePolicy({ batchWaitTimeout: 0.01, maxBatchSize: 2, maxOngoingRequests: 100 }), [0, 0.5, 1.0, 1.2, 1.4]);
    expect(r.meanResponseTime).toBeCloseTo(mean([3.5, 3.0, 5.5, 5.3, 12.0]), 12);
  });

  it('the trap: the default max_ongoing_requests (5) caps every batch at 5', () => {
    const ray = parseSimPolicySpec('ray-serve:batch_wait_timeout_s=0.004', 32);
    expect(ray).toEqual({ kind: 'ray-serve', batchWaitTimeout: 0.004, maxBatchSize: 32, maxOngoingRequests: 5 });
    const policy = buildSimPolicy(ray, spec);
    // 5 / l(5) = 5 / 2.6064 ms = 1918 /s < 4000 /s.
    expect(() => simulate(spec, policy, { requests: 10_000 })).toThrow(/unstable: for long queues it serves batches of 5, which clear at most 5\/l\(5\) = 1918\.35\d* \/s < arrivalRate 4000/);
    const r = simulate(spec, policy, { trace: heavyTrace });
    expect(largest(r.batchSizeHistogram)).toBeLessThanOrEqual(5);
    expect(r.throughput).toBeLessThan(1920);
    expect(r.meanResponseTime).toBeGreaterThan(1);
    // max_ongoing_requests = 2 × max_batch_size: batches fill, and the server keeps up.
    const wide = simulate(spec, new RayServePolicy({ batchWaitTimeout: 0.004, maxBatchSize: 32, maxOngoingRequests: 64 }), { trace: heavyTrace });
    expect(largest(wide.batchSizeHistogram)).toBeGreaterThan(5);
    expect(wide.meanBatchSize).toBeGreaterThan(12);
    expect(wide.meanResponseTime).toBeLessThan(0.05);
  });
});

describe('the batchers in the policy syntax', () => {
  it('reads the systems’ own parameter names and defaults', () => {
    expect(parseSimPolicySpec('torchserve', 32)).toEqual({ kind: 'torchserve', maxBatchDelayMs: 100, batchSize: 32 });
    expect(parseSimPolicySpec('torchserve:maxBatchDelay=5,batchSize=8', 32)).toEqual({ kind: 'torchserve', maxBatchDelayMs: 5, batchSize: 8 });
    expect(parseSimPolicySpec('torchserve:delay=0ms', 32)).toEqual({ kind: 'torchserve', maxBatchDelayMs: 0, batchSize: 32 });
    expect(parseSimPolicySpec('ray-serve', 32)).toEqual({ kind: 'ray-serve', batchWaitTimeout: 0.01, maxBatchSize: 32, maxOngoingRequests: 5 });
    expect(parseSimPolicySpec('ray:timeout=2ms,max=16,max_ongoing_requests=64', 32)).toEqual({
      kind: 'ray-serve',
      batchWaitTimeout: 0.002,
      maxBatchSize: 16,
      maxOngoingRequests: 64,
    });
    expect(buildSimPolicy(parseSimPolicySpec('torchserve:delay=3ms', 32), spec).name).toBe('torchserve:maxBatchDelay=3ms,batchSize=32');
    expect(buildSimPolicy(parseSimPolicySpec('ray-serve:timeout=4ms,ongoing=64', 32), spec).name).toBe(
      'ray-serve:batch_wait_timeout_s=0.004,max_batch_size=32,max_ongoing_requests=64',
    );
  });

  it('refuses what the systems would not run', () => {
    expect(() => parseSimPolicySpec('torchserve:delay=1.5ms', 32)).toThrow(/whole number of ms/);
    expect(() => parseSimPolicySpec('torchserve:delay=2', 32)).toThrow(/needs a unit/);
    expect(() => parseSimPolicySpec('ray-serve:ongoing=0', 32)).toThrow(/policy\.ongoing: must be in 1\.\.1000000000/);
    expect(() => parseSimPolicySpec('ray-serve:max=33', 32)).toThrow(/must be in 1\.\.32/);
  });
});
