import { describe, expect, it } from 'vitest';
import { responseTimeDistribution } from '../../src/latency/distribution.js';
import { latencyModel } from '../../src/latency/summary.js';
import { validateScenario } from '../../src/model/validate.js';
import { TARGETS } from '../../src/plan/export/targets.js';
import { atArrivalRate, latencyAgainstLoad, loadChartTitle, simulatedPercentiles } from '../../src/plan/loadLatency.js';
import { renderLatencyBandsSvg } from '../../src/plan/svg/latencyBands.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { greedyPolicy } from '../../src/policy/policy.js';
import { TfServingPolicy } from '../../src/sim/policies/tfServing.js';
import { TorchServePolicy } from '../../src/sim/policies/torchServe.js';
import { TritonPolicy } from '../../src/sim/policies/triton.js';
import { shareBelow, simulateTimeoutBatcher } from '../helpers/queueSim.js';
import { specCapacity, specScenario } from '../helpers/scenarios.js';
import { parseXml, type XmlElement } from './xmlCheck.js';

const B = 32;
const sim = { replications: 8, requests: 50_000, seed: 11 };
const byClass = (els: XmlElement[], cls: string): XmlElement[] => els.filter((e) => (e.attrs.class ?? '').split(' ').includes(cls));

describe('exported settings on the latency chart: percentiles by replicated simulation', () => {
  it('a zero-delay Triton setting (greedy service, a queue-length policy) has the exact law: its p99 interval holds the exact p99', () => {
    for (const rate of [0.4, 0.85].map((x) => x * specCapacity(B))) {
      const p = validateScenario(specScenario(rate, 1e-4)).params;
      const greedy = greedyPolicy(B);
      const exact = responseTimeDistribution(latencyModel(p), greedy, evaluatePolicy(p, greedy), { gridPoints: 0 }).percentiles;
      const r = simulatedPercentiles(p, () => new TritonPolicy({ maxQueueDelay: 0, preferredBatchSizes: [], maxBatchSize: B }), sim);
      if ('reason' in r) throw new Error(r.reason);
      expect(Math.abs(r.p99 - exact.p99)).toBeLessThanOrEqual(r.p99HalfWidth! + 1e-9 * exact.p99);
      // and it tells a 3 % shift apart
      expect(r.p99HalfWidth!).toBeLessThan(0.03 * exact.p99);
      expect(Math.abs(r.p50 - exact.p50)).toBeLessThanOrEqual(0.01 * exact.p50);
    }
  });

  it('a TF Serving timeout setting agrees with an independent timeout-batcher simulation (test/helpers/queueSim.ts)', () => {
    const rate = 0.7 * specCapacity(B);
    const p = validateScenario(specScenario(rate, 1e-4)).params;
    const timeout = 0.002;
    const r = simulatedPercentiles(p, () => new TfServingPolicy({ batchTimeout: timeout, maxBatchSize: B, allowedBatchSizes: [] }), sim);
    if ('reason' in r) throw new Error(r.reason);
    const ref = simulateTimeoutBatcher(p, timeout, B, 1_000_000, 5);
    // The reference's share at the replications' p99 and p99 ± half-width, with its batch-means error.
    const at = (t: number) => shareBelow(ref, t, 20);
    const lo = at(r.p99 - r.p99HalfWidth! - 1e-12);
    const hi = at(r.p99 + r.p99HalfWidth! + 1e-12);
    expect(lo.share - 4 * lo.se).toBeLessThanOrEqual(0.99);
    expect(hi.share + 4 * hi.se).toBeGreaterThanOrEqual(0.99);
    // p50 to a percent of the reference's own median
    const sorted = Float64Array.from(ref).sort();
    expect(Math.abs(r.p50 - sorted[Math.floor(0.5 * sorted.length)])).toBeLessThanOrEqual(0.01 * r.p50);
  });

  it('a setting that cannot keep up has no figures and says so (TorchServe maxBatchDelay 0 serves 2 at a time: capacity 2/l(2))', () => {
    const p = validateScenario(specScenario(0.5 * specCapacity(B), 1e-4)).params;
    expect(p.arrivalRate).toBeGreaterThan(2 / p.meanService[2]);
    const r = simulatedPercentiles(p, () => new TorchServePolicy({ maxBatchDelayMs: 0, batchSize: B }), sim);
    expect('reason' in r && r.reason).toMatch(/unstable: for long queues it serves batches of 2/);
  });

  it('latencyAgainstLoad with settings: the exported setting held fixed, simulated at each rate, drawn dotted with p99 whiskers', async () => {
    const scenario = specScenario(1500, 1e-4);
    const load = await latencyAgainstLoad(scenario, { points: 3, settings: ['tf-serving'], simulation: { replications: 4, requests: 20_000, seed: 3 } });
    expect(load.series.map((s) => s.kind)).toEqual(['optimal', 'fixed', 'greedy', 'setting']);
    const setting = load.series[3];
    expect(setting.method).toBe('simulated');
    expect(setting.setting!.target).toBe('tf-serving');
    expect(setting.points.length + setting.unavailable.length).toBe(3);
    // Each point is the replications of that very setting at that rate (the same seeds: the same numbers).
    for (const pt of setting.points) {
      const again = simulatedPercentiles(atArrivalRate(validateScenario(scenario), pt.arrivalRate).params, () => TARGETS['tf-serving'].simPolicy(setting.setting!), { replications: 4, requests: 20_000, seed: 3 });
      if ('reason' in again) throw new Error(again.reason);
      expect(pt.p99).toBe(again.p99);
    }
    const els = parseXml(renderLatencyBandsSvg(load.series, loadChartTitle(validateScenario(scenario).params, load)));
    const series = byClass(els, 'series');
    expect(series.map((s) => s.attrs['data-method'])).toEqual(['exact', 'exact', 'exact', 'simulated']);
    expect(series[3].attrs['data-label']).toMatch(/^TF Serving batching_parameters, delay [\d.]+ ms \(exported for λ = 1500 \/s; simulated\)$/);
    const marks = byClass(els, 'point').filter((e) => e.attrs['data-method'] === 'simulated');
    expect(marks).toHaveLength(setting.points.length);
    for (const [i, m] of marks.entries()) expect(Number(m.attrs['data-p99-half-width-ms'])).toBeCloseTo(setting.points[i].p99HalfWidth! * 1e3, 9);
  });
});
