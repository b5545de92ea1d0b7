import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { exportPolicy, type ExportResult } from '../../src/plan/export/exportPolicy.js';
import { renderSetting } from '../../src/plan/export/render.js';
import { EXPORT_TARGETS, TARGETS, type ExportTarget } from '../../src/plan/export/targets.js';
import { simulateSideBySide } from '../../src/plan/export/sideBySide.js';
import { simulate } from '../../src/sim/simulate.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';

/** The configuration as the target reads it, checked against the reported setting. */
const native: Record<ExportTarget, (r: ExportResult) => void> = {
  triton: (r) => {
    expect(r.config).toMatch(/^max_batch_size: 32$/m);
    expect(r.config).toMatch(/^dynamic_batching \{$/m);
    expect(Number(/max_queue_delay_microseconds: (\d+)/.exec(r.config)![1])).toBe(Math.round(r.setting.delay * 1e6));
    if (r.setting.preferredBatchSizes.length > 0) expect(r.config).toContain(`preferred_batch_size: [ ${r.setting.preferredBatchSizes.join(', ')} ]`);
    // One instance, pinned to one GPU (else Triton puts one on every visible GPU).
    expect(r.config).toMatch(/instance_group \[\n {2}\{\n {4}count: 1\n {4}kind: KIND_GPU\n {4}gpus: \[ 0 \]\n {2}\}\n\]/);
  },
  'tf-serving': (r) => {
    expect(r.config).toMatch(/^max_batch_size \{ value: 32 \}$/m);
    expect(Number(/^batch_timeout_micros \{ value: (\d+) \}$/m.exec(r.config)![1])).toBe(Math.round(r.setting.delay * 1e6));
    expect(r.config).toMatch(/^num_batch_threads \{ value: 1 \}$/m);
    expect(r.config).toMatch(/^max_enqueued_batches \{ value: \d+ \}$/m);
  },
  'ray-serve': (r) => {
    const m = /@serve\.batch\(max_batch_size=32, batch_wait_timeout_s=([0-9.e-]+), max_concurrent_batches=1\)/.exec(r.config)!;
    expect(Math.abs(Number(m[1]) - r.setting.delay)).toBeLessThan(1e-9);
    expect(r.config).toMatch(/^from ray import serve$/m);
    // The replica must hold a full batch: Ray's default of 5 would cap every batch at 5.
    const ongoing = Number(/^ {4}max_ongoing_requests=(\d+),$/m.exec(r.config)![1]);
    expect(ongoing).toBe(r.setting.maxOngoingRequests);
    expect(ongoing).toBeGreaterThanOrEqual(32);
    expect(r.config).toMatch(/^ {4}num_replicas=1,$/m);
  },
  torchserve: (r) => {
    const line = r.config.split('\n').find((l) => l.startsWith('models='))!;
    const models = JSON.parse(line.slice('models='.length)) as Record<string, Record<string, { batchSize: number; maxBatchDelay: number; minWorkers: number; maxWorkers: number }>>;
    const v = models.model['1.0'];
    expect(v.batchSize).toBe(32);
    expect(Number.isInteger(v.maxBatchDelay)).toBe(true);
    expect(v.maxBatchDelay).toBe(Math.round(r.setting.delay * 1e3));
    // Never the degenerate 0 (Model.pollBatch stops every batch at 2).
    expect(v.maxBatchDelay).toBeGreaterThanOrEqual(1);
    expect([v.minWorkers, v.maxWorkers]).toEqual([1, 1]);
  },
};

const examples = JSON.parse(readFileSync(new URL('../../examples/scenario.json', import.meta.url), 'utf8')) as Scenario;
const cases: { name: string; scenario: Scenario }[] = [
  { name: 'examples/scenario.json (λ = 4000, w_pow = 1e-4)', scenario: examples },
  { name: 'λ = 4000, w_pow = 1e-3', scenario: specScenario(4000, 1e-3) },
];
const opts = { requests: 100_000, tuningRequests: 40_000, seed: 5 };

describe.each(cases)('export on $name: tuned settings reproduce their reported cost in simulation', ({ scenario }) => {
  const params = validateScenario(scenario).params;

  for (const target of EXPORT_TARGETS) {
    it(target, async () => {
      const r = await exportPolicy(scenario, target, opts);
      native[target](r);
      expect(r.assumptions.length).toBeGreaterThanOrEqual(2);
      // The delay is a whole number of the target's unit, at least its least safe value, and the cheapest one tried.
      const perSecond = TARGETS[target].perSecond;
      expect(Math.abs(r.setting.delay * perSecond - Math.round(r.setting.delay * perSecond))).toBeLessThan(1e-6);
      expect(Math.round(r.setting.delay * perSecond)).toBeGreaterThanOrEqual(TARGETS[target].minUnits);
      expect(r.trials.length).toBeGreaterThanOrEqual(5);
      const byDelay = [...r.trials].sort((x, y) => x.delay - y.delay);
      const cheapest = byDelay.reduce((a, t) => (t.averageCost < a.averageCost ? t : a));
      expect([cheapest.delay, cheapest.preferredBatchSizes, cheapest.maxOngoingRequests]).toEqual([r.setting.delay, r.setting.preferredBatchSizes, r.setting.maxOngoingRequests]);
      // Re-simulate the exported setting on another seed: its cost agrees with the reported one
      // within the 95 % interval of the difference of two independent estimates.
      const again = simulate(params, TARGETS[target].simPolicy(r.setting), { requests: opts.requests, seed: 77 });
      const h = Math.hypot(r.exported.halfWidth!, again.confidence.averageCost!);
      expect(Math.abs(again.averageCost - r.exported.averageCost)).toBeLessThanOrEqual(h);
      // The traps stay shut: batches are not capped at 2 (TorchServe) or 5 (Ray).
      expect(again.batchSizeHistogram.length - 1).toBeGreaterThan(5);
      // The gap carries a paired interval: far tighter than the two runs' own intervals combined
      // (common random numbers), and an independent replication of the side-by-side run on seed 77
      // agrees with it within the two paired intervals combined.
      const hGap = r.gap.halfWidth;
      expect(hGap).not.toBeNull();
      expect(hGap!).toBeGreaterThan(0);
      expect(hGap!).toBeLessThan(Math.hypot(r.exported.halfWidth!, r.optimal.simulated.halfWidth!) / 2);
      const replica = simulateSideBySide(params, TARGETS[target].simPolicy(r.setting), await solveScenario(scenario), { requests: opts.requests, seed: 77 });
      expect(replica.exported.averageCost).toBe(again.averageCost);
      expect(Math.abs(replica.gap.difference - r.gap.difference)).toBeLessThanOrEqual(Math.hypot(hGap!, replica.gap.halfWidth!));
      // No batcher beats the optimal policy (paired, same arrivals), and the gap is reported against the exact optimum.
      expect(r.gap.difference + hGap!).toBeGreaterThanOrEqual(0);
      expect(r.gap.difference).toBeCloseTo(r.exported.averageCost - r.optimal.simulated.averageCost, 14);
      expect(r.gap.relative).toBeCloseTo(r.gap.difference / r.optimal.averageCost, 10);
      expect(r.gap.vsExact).toBeCloseTo(r.exported.averageCost - r.optimal.averageCost, 10);
      if (scenario.objective.powerWeight === 1e-3) expect(r.optimal.averageCost).toBeCloseTo(0.142151425903, 10);
    });
  }
});

describe('export refuses degenerate settings', () => {
  it("renders no TorchServe maxBatchDelay of 0 (it would stop every batch at 2 jobs)", () => {
    const ctx = { modelName: 'model', maxEnqueuedBatches: 10, note: 'test' };
    expect(() => renderSetting({ target: 'torchserve', maxBatchSize: 32, delay: 0, preferredBatchSizes: [] }, ctx)).toThrow(/at least 1 ms: with 0, Model\.pollBatch stops every batch at 2 jobs/);
    expect(renderSetting({ target: 'torchserve', maxBatchSize: 32, delay: 0.001, preferredBatchSizes: [] }, ctx)).toMatch(/"maxBatchDelay":1\}/);
  });
});
