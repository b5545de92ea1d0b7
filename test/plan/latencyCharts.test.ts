import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { responseTimeDistribution } from '../../src/latency/distribution.js';
import { latencyModel, RESULT_LAW_OPTIONS } from '../../src/latency/summary.js';
import { validateScenario } from '../../src/model/validate.js';
import { computeFrontier, type Frontier } from '../../src/plan/frontier.js';
import { vertexP99s } from '../../src/plan/frontierLatency.js';
import { latencyAgainstLoad, loadChartTitle } from '../../src/plan/loadLatency.js';
import { renderFrontierSvg } from '../../src/plan/svg/frontierChart.js';
import { renderLatencyBandsSvg } from '../../src/plan/svg/latencyBands.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { greedyPolicy, summarizePolicy, type Policy } from '../../src/policy/policy.js';
import { policyOf } from '../../src/solve/result.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { runCli as run } from '../helpers/cli.js';
import { specCapacity, specScenario } from '../helpers/scenarios.js';
import { parseXml, type XmlElement } from './xmlCheck.js';

/** The docs/model.md §6 fit (deterministic service: the exact mixture, cheap percentiles). */
const NOMINAL = 1500;
const W_POW = 1e-4;
const B = 32;

const byClass = (els: XmlElement[], cls: string): XmlElement[] => els.filter((e) => (e.attrs.class ?? '').split(' ').includes(cls));
const within = (e: XmlElement, ancestor: XmlElement): boolean => {
  for (let p = e.parent; p; p = p.parent) if (p === ancestor) return true;
  return false;
};
const relClose = (a: number, b: number, rel: number): void => expect(Math.abs(a - b)).toBeLessThanOrEqual(rel * Math.abs(b));

/** p99 of `policy` at rate λ, from a scenario built afresh at λ (not through the chart's own rescaling). */
function exactP99(rate: number, policy: Policy): number {
  const p = validateScenario(specScenario(rate, W_POW)).params;
  return responseTimeDistribution(latencyModel(p), policy, evaluatePolicy(p, policy), RESULT_LAW_OPTIONS).percentiles.p99;
}

describe('latency against load chart', () => {
  let svg: string;
  let els: XmlElement[];
  beforeAll(async () => {
    const load = await latencyAgainstLoad(specScenario(NOMINAL, W_POW), { points: 3 });
    svg = renderLatencyBandsSvg(load.series, loadChartTitle(validateScenario(specScenario(NOMINAL, W_POW)).params, load));
    els = parseXml(svg);
  });

  it('is well-formed XML with one band per policy and the scenario in its title', () => {
    expect(els[0].name).toBe('svg');
    const series = byClass(els, 'series');
    expect(series.map((s) => s.attrs['data-label'])).toEqual([
      'optimal policy at each λ',
      expect.stringMatching(/^λ = 1500 \/s optimum held fixed \(control limit \d+\)$/),
      'greedy: serve whatever waits (zero-delay setting)',
    ]);
    expect(byClass(els, 'band')).toHaveLength(3);
    for (const s of series) {
      const band = byClass(els, 'band').find((b) => within(b, s))!;
      // p50 out, p99 back: two vertices per rate.
      expect(band.attrs.points.split(' ')).toHaveLength(6);
      expect(byClass(els, 'point').filter((m) => within(m, s))).toHaveLength(3);
    }
    const title = els.find((e) => e.name === 'title' && e.parent === els[0])!.text;
    const cap = specCapacity(B);
    for (const part of [`λ ${(0.1 * cap).toFixed(0)}–${(0.95 * cap).toFixed(0)} /s`, 'nominal 1500 /s', 'B = 32', 'deterministic service', 'w_lat = 1', 'w_pow = 0.0001']) {
      expect(title).toContain(part);
    }
    expect(byClass(els, 'subtitle')[0].text).toContain('B = 32 · deterministic service');
  });

  it("plots each policy's exact p99 (responseTimeDistribution on the same policy, as results compute it) at the first and last rate", async () => {
    const nominal = policyOf((await solveScenario(specScenario(NOMINAL, W_POW), { percentiles: false })).policy, B);
    const [optimal, fixed, greedy] = byClass(els, 'series');
    const points = (s: XmlElement): XmlElement[] => byClass(els, 'point').filter((m) => within(m, s));
    for (const i of [0, 2]) {
      const rate = Number(points(optimal)[i].attrs['data-arrival-rate']);
      relClose(rate, (i === 0 ? 0.1 : 0.95) * specCapacity(B), 1e-12);
      const solvedThere = policyOf((await solveScenario(specScenario(rate, W_POW), { percentiles: false })).policy, B);
      expect(Number(points(optimal)[i].attrs['data-control-limit'])).toBe(summarizePolicy(solvedThere, B).controlLimit);
      for (const [s, policy] of [
        [optimal, solvedThere],
        [fixed, nominal],
        [greedy, greedyPolicy(B)],
      ] as const) {
        const m = points(s)[i];
        expect(Number(m.attrs['data-arrival-rate'])).toBe(rate);
        // The same law to the percentile search's tolerance (the solve's own evaluation may extend a few more levels).
        relClose(Number(m.attrs['data-p99-ms']), exactP99(rate, policy) * 1e3, 1e-8);
      }
    }
    // The p99 line runs through the markers; the band's upper edge is the p99 line.
    for (const s of [optimal, fixed, greedy]) {
      const line = byClass(els, 'p99').find((l) => within(l, s))!.attrs.points.split(' ');
      expect(line).toEqual(points(s).map((m) => `${m.attrs.cx},${m.attrs.cy}`));
      const band = byClass(els, 'band').find((b) => within(b, s))!.attrs.points.split(' ');
      expect(band.slice(3)).toEqual([...line].reverse());
    }
  });
});

describe('frontier in p99', () => {
  let f: Frontier;
  beforeAll(async () => {
    f = await computeFrontier(specScenario(NOMINAL, W_POW));
  });

  it('places each vertex at its exact p99 and labels it with its control limit', () => {
    const p = validateScenario(specScenario(NOMINAL, W_POW)).params;
    const got = vertexP99s(p, f.vertices);
    if (!('p99' in got)) throw new Error(got.unavailable);
    const points = f.vertices.map((v, i) => ({
      meanResponseTime: v.figures.meanResponseTime,
      meanPower: v.figures.meanPower,
      controlLimit: summarizePolicy(v.policy, B).controlLimit,
      p99: got.p99[i],
    }));
    const els = parseXml(renderFrontierSvg(points, { latency: 'p99', title: 'p99 frontier' }));
    expect(els.find((e) => e.attrs.class === 'x-label')!.text).toBe('p99 response time (ms)');
    const markers = byClass(els, 'vertex');
    const labels = byClass(els, 'vertex-label');
    expect(markers).toHaveLength(f.vertices.length);
    expect(labels).toHaveLength(f.vertices.length);
    f.vertices.forEach((v, i) => {
      const exact = responseTimeDistribution(latencyModel(p), v.policy, evaluatePolicy(p, v.policy), RESULT_LAW_OPTIONS).percentiles.p99;
      expect(Number(markers[i].attrs['data-p99-ms'])).toBe(exact * 1e3);
      const limit = summarizePolicy(v.policy, B).controlLimit;
      expect(markers[i].attrs['data-control-limit']).toBe(String(limit));
      expect(labels[i].text).toBe(`M=${limit}`);
      // The label sits by its marker.
      expect(Number(labels[i].attrs.x)).toBeCloseTo(Number(markers[i].attrs.cx) + 6, 1);
    });
    // x is the p99, not the mean: markers are ordered as the p99s are.
    for (let i = 1; i < markers.length; i++) {
      expect(Math.sign(Number(markers[i].attrs.cx) - Number(markers[i - 1].attrs.cx))).toBe(Math.sign(points[i].p99 - points[i - 1].p99));
    }
  });
});

describe('CLI: solve --latency-chart, frontier --svg-p99', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'batchwise-charts-'));
    file = join(dir, 'spec.json');
    writeFileSync(file, JSON.stringify(specScenario(NOMINAL, W_POW)));
  });

  it('solve --latency-chart writes the three bands over --chart-points rates', async () => {
    const out = join(dir, 'load.svg');
    const r = await run('solve', file, '--latency-chart', out, '--chart-points', '2');
    expect(r.code).toBe(0);
    const els = parseXml(readFileSync(out, 'utf8'));
    expect(byClass(els, 'band')).toHaveLength(3);
    expect(byClass(els, 'point')).toHaveLength(6);
    const bad = await run('solve', file, '--latency-chart', out, '--chart-points', '1');
    expect(bad.code).toBe(2);
  });

  it('frontier --svg-p99 labels every vertex with its control limit', async () => {
    const out = join(dir, 'p99.svg');
    const r = await run('frontier', file, '--svg-p99', out);
    expect(r.code).toBe(0);
    const rows = r.out.split('\n').filter((l) => /^\s+\d+\s+\d+\.\d{4} ms/.test(l));
    const els = parseXml(readFileSync(out, 'utf8'));
    const labels = byClass(els, 'vertex-label');
    expect(labels).toHaveLength(rows.length);
    // The table's control-limit column, vertex by vertex.
    rows.forEach((row, i) => expect(labels[i].text).toBe(`M=${row.trim().split(/\s+/)[6]}`));
  });
});
