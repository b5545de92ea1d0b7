import { describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import { CollectorPolicy } from '../../src/plan/export/collector.js';
import { exportPolicy, type ExportResult } from '../../src/plan/export/exportPolicy.js';
import { EXPORT_TARGETS, TARGETS, type ExportTarget } from '../../src/plan/export/targets.js';
import { TfServingPolicy } from '../../src/sim/policies/tfServing.js';
import { simulate } from '../../src/sim/simulate.js';
import { specScenario } from '../helpers/scenarios.js';

describe('the TorchServe / Ray Serve batcher, traced by hand', () => {
  // B = 4, deterministic l(b) = b + 1 s; arrivals at 0, 0.5, 1, 5, 5.2, 20; delay 2 s.
  const tiny = validateScenario({
    arrivalRate: 0.5,
    maxBatchSize: 4,
    serviceTime: { linear: { perItem: 1, base: 1 } },
    power: { idleWatts: 5, busyLinear: { perItem: 10, base: 100 } },
    objective: { latencyWeight: 1, powerWeight: 0.01 },
  }).params;
  const trace = Float64Array.of(0, 0.5, 1, 5, 5.2, 20);

  it('restarts its clock when the worker frees up, unlike a timeout from the oldest arrival', () => {
    // Collector: 0→ collect until 2, serve {0, .5, 1} until 6 (R 6, 5.5, 5); at 6 take 5 and collect
    // until 8, serve {5, 5.2} until 11 (R 6, 5.8); 20 → serve at 22 until 24 (R 4).
    const c = simulate(tiny, new CollectorPolicy(2, 4, 'collector'), { trace, warmup: 0 });
    expect(c.meanResponseTime).toBeCloseTo((6 + 5.5 + 5 + 6 + 5.8 + 4) / 6, 12);
    expect(c.batchSizeHistogram).toEqual([0, 1, 1, 1]);
    // TF Serving's timeout runs from the oldest arrival: {5, 5.2} go at 7 instead (R 5, 4.8).
    const tf = simulate(tiny, new TfServingPolicy({ batchTimeout: 2, maxBatchSize: 4, allowedBatchSizes: [] }), { trace, warmup: 0 });
    expect(tf.meanResponseTime).toBeCloseTo((6 + 5.5 + 5 + 5 + 4.8 + 4) / 6, 12);
  });

  it('sends a full batch at once', () => {
    const r = simulate(tiny, new CollectorPolicy(100, 2, 'collector'), { trace: Float64Array.of(0, 0.5, 1, 1.5), warmup: 0 });
    // {0, .5} at 0.5 until 3.5; {1, 1.5} at 3.5 until 6.5.
    expect(r.meanResponseTime).toBeCloseTo((3.5 + 3 + 5.5 + 5) / 4, 12);
  });
});

describe('export: tuned delays reproduce their reported cost in simulation', () => {
  const scenario = specScenario(4000, 1e-3);
  const params = validateScenario(scenario).params;
  const opts = { requests: 100_000, tuningRequests: 40_000, seed: 5 };

  const native: Record<ExportTarget, (r: ExportResult) => void> = {
    triton: (r) => {
      expect(r.config).toMatch(/^max_batch_size: 32$/m);
      expect(r.config).toMatch(/^dynamic_batching \{$/m);
      expect(Number(/max_queue_delay_microseconds: (\d+)/.exec(r.config)![1])).toBe(Math.round(r.setting.delay * 1e6));
      if (r.setting.preferredBatchSizes.length > 0) expect(r.config).toContain(`preferred_batch_size: [ ${r.setting.preferredBatchSizes.join(', ')} ]`);
    },
    'tf-serving': (r) => {
      expect(r.config).toMatch(/^max_batch_size \{ value: 32 \}$/m);
      expect(Number(/^batch_timeout_micros \{ value: (\d+) \}$/m.exec(r.config)![1])).toBe(Math.round(r.setting.delay * 1e6));
      expect(r.config).toMatch(/^num_batch_threads \{ value: 1 \}$/m);
      expect(r.config).toMatch(/^max_enqueued_batches \{ value: \d+ \}$/m);
    },
    'ray-serve': (r) => {
      const m = /@serve\.batch\(max_batch_size=32, batch_wait_timeout_s=([0-9.e-]+)\)/.exec(r.config)!;
      expect(Math.abs(Number(m[1]) - r.setting.delay)).toBeLessThan(1e-9);
      expect(r.config).toMatch(/^from ray import serve$/m);
    },
    torchserve: (r) => {
      const line = r.config.split('\n').find((l) => l.startsWith('models='))!;
      const models = JSON.parse(line.slice('models='.length)) as Record<string, Record<string, { batchSize: number; maxBatchDelay: number }>>;
      const v = models.model['1.0'];
      expect(v.batchSize).toBe(32);
      expect(Number.isInteger(v.maxBatchDelay)).toBe(true);
      expect(v.maxBatchDelay).toBe(Math.round(r.setting.delay * 1e3));
    },
  };

  for (const target of EXPORT_TARGETS) {
    it(target, async () => {
      const r = await exportPolicy(scenario, target, opts);
      native[target](r);
      // The delay is a whole number of the target's unit, and the cheapest one tried.
      const perSecond = TARGETS[target].perSecond;
      expect(Math.abs(r.setting.delay * perSecond - Math.round(r.setting.delay * perSecond))).toBeLessThan(1e-6);
      expect(r.trials.length).toBeGreaterThanOrEqual(5);
      const byDelay = [...r.trials].sort((x, y) => x.delay - y.delay);
      const cheapest = byDelay.reduce((a, t) => (t.averageCost < a.averageCost ? t : a));
      expect(cheapest.delay).toBe(r.setting.delay);
      // Re-simulate the exported setting on another seed: its cost agrees with the reported one
      // within the 95 % interval of the difference of two independent estimates.
      const again = simulate(params, TARGETS[target].simPolicy(r.setting), { requests: opts.requests, seed: 77 });
      const h = Math.hypot(r.exported.halfWidth!, again.confidence.averageCost!);
      expect(Math.abs(again.averageCost - r.exported.averageCost)).toBeLessThanOrEqual(h);
      // No batcher beats the optimal policy (paired, same arrivals), and the gap is reported against the exact optimum.
      expect(r.gap.difference + r.gap.halfWidth!).toBeGreaterThanOrEqual(0);
      expect(r.gap.difference).toBeCloseTo(r.exported.averageCost - r.optimal.simulated.averageCost, 14);
      expect(r.gap.relative).toBeCloseTo(r.gap.difference / 0.142151425903, 10);
      expect(r.gap.vsExact).toBeCloseTo(r.exported.averageCost - 0.142151425903, 10);
    });
  }
});
