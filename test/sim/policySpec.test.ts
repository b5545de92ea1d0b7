import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { parseDuration } from '../../src/sim/durations.js';
import { buildSimPolicy, parseSimPolicySpec } from '../../src/sim/policySpec.js';
import { tinyParams } from './tiny.js';

const B = 32;

describe('parseDuration', () => {
  it('reads units and refuses bare numbers unless a default unit is given', () => {
    expect(parseDuration('2ms', 'x')).toBeCloseTo(0.002, 15);
    expect(parseDuration('2.5 ms', 'x')).toBeCloseTo(0.0025, 15);
    expect(parseDuration('500us', 'x')).toBeCloseTo(0.0005, 15);
    expect(parseDuration('500µs', 'x')).toBeCloseTo(0.0005, 15);
    expect(parseDuration('1e-3s', 'x')).toBeCloseTo(0.001, 15);
    expect(parseDuration('1500', 'x', 'us')).toBeCloseTo(0.0015, 15);
    expect(() => parseDuration('2', 'delay')).toThrow(/delay: needs a unit/);
    expect(() => parseDuration('2h', 'delay')).toThrow(/unknown unit "h"/);
    expect(() => parseDuration('-1ms', 'delay')).toThrow(/must be a duration/);
  });
});

describe('parseSimPolicySpec', () => {
  it('passes the solver syntax through', () => {
    const s = parseSimPolicySpec('static:8', B);
    expect(s.kind).toBe('table');
    if (s.kind === 'table') expect(s.policy.tailBatch).toBe(8);
    expect(parseSimPolicySpec('optimal', B)).toEqual({ kind: 'optimal' });
  });

  it('reads Triton parameters by short name and by the names in Triton model configs', () => {
    const short = parseSimPolicySpec('triton:delay=2ms,preferred=16|8,max=16', B);
    const native = parseSimPolicySpec('triton:max_queue_delay_microseconds=2000,preferred_batch_size=8|16,max_batch_size=16', B);
    const camel = parseSimPolicySpec('Triton:maxQueueDelayMicroseconds=2000,preferredBatchSize=8|16,maxBatchSize=16', B);
    const want = { kind: 'triton', maxQueueDelay: 0.002, preferredBatchSizes: [8, 16], maxBatchSize: 16 };
    for (const s of [short, native, camel]) {
      expect(s.kind).toBe('triton');
      if (s.kind === 'triton') {
        expect(s.maxQueueDelay).toBeCloseTo(want.maxQueueDelay, 15);
        expect(s.preferredBatchSizes).toEqual(want.preferredBatchSizes);
        expect(s.maxBatchSize).toBe(want.maxBatchSize);
      }
    }
    // Defaults: no delay, no preferred sizes, the scenario's B (Triton's defaults).
    expect(parseSimPolicySpec('triton', B)).toEqual({ kind: 'triton', maxQueueDelay: 0, preferredBatchSizes: [], maxBatchSize: B });
  });

  it('reads TF-Serving and Clipper AIMD parameters', () => {
    const tf = parseSimPolicySpec('tf-serving:batch_timeout_micros=1500,max_batch_size=32,allowed_batch_sizes=8|16|32', B);
    expect(tf).toEqual({ kind: 'tf-serving', batchTimeout: 0.0015, maxBatchSize: 32, allowedBatchSizes: [8, 16, 32] });
    const aimd = parseSimPolicySpec('aimd:slo=5ms,step=2,backoff=0.8,max=24,start=4', B);
    expect(aimd).toEqual({ kind: 'aimd', latencySlo: 0.005, additiveIncrease: 2, multiplicativeDecrease: 0.8, maxBatchSize: 24, initialBatchSize: 4 });
    const clipper = parseSimPolicySpec('clipper:slo_micros=5000', B);
    expect(clipper.kind === 'aimd' && clipper.latencySlo).toBeCloseTo(0.005, 15);
  });

  it('gives every refusal as a ScenarioError that says what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['fastest', /unknown policy "fastest": expected optimal, greedy/],
      ['triton:delay=2', /needs a unit/],
      ['triton:delay=2ms,max_queue_delay_microseconds=5', /given twice/],
      ['triton:max=64', /must be in 1\.\.32 \(got 64\)/],
      ['triton:preferred=8|40', /must be in 1\.\.32 \(got 40\)/],
      ['triton:preferred=8|8', /repeats a size/],
      ['triton:colour=blue', /unknown parameter "colour"/],
      ['triton:delay', /needs a value/],
      ['tf-serving:max=16,allowed=4|8', /last allowed_batch_sizes entry must equal max_batch_size = 16/],
      ['aimd', /needs a latency objective/],
      ['aimd:slo=0ms', /must be > 0/],
      ['aimd:slo=1ms,backoff=1.5', /must be in \[0\.01, 0\.99\]/],
      ['optimal:3', /takes no parameters/],
      ['static:0', /static:b batch size b must be in 1\.\.32/],
    ];
    for (const [spec, message] of cases) {
      let err: unknown;
      try {
        parseSimPolicySpec(spec, B);
      } catch (e) {
        err = e;
      }
      expect(err, spec).toBeInstanceOf(ScenarioError);
      expect((err as Error).message, spec).toMatch(message);
    }
  });

  it('names policies canonically, and optimal needs the solved table', () => {
    const p = tinyParams();
    expect(buildSimPolicy(parseSimPolicySpec('triton:delay=1.5ms,max=4', 4), p).name).toBe(
      'triton:max_queue_delay_microseconds=1500,max_batch_size=4',
    );
    expect(buildSimPolicy(parseSimPolicySpec('static:2', 4), p).name).toBe('static:2');
    expect(buildSimPolicy(parseSimPolicySpec('greedy', 4), p).name).toBe('greedy');
    expect(() => buildSimPolicy({ kind: 'optimal' }, p)).toThrow(/optimal needs the solved policy/);
  });
});
