import { describe, expect, it } from 'vitest';
import { computeFrontier } from '../../src/plan/frontier.js';
import { renderFrontierSvg } from '../../src/plan/svg/frontierChart.js';
import { renderPolicySvg } from '../../src/plan/svg/policyChart.js';
import { niceAxis } from '../../src/plan/svg/scale.js';
import { summarizePolicy } from '../../src/policy/policy.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { parseXml, type XmlElement } from './xmlCheck.js';

const byClass = (els: XmlElement[], cls: string): XmlElement[] => els.filter((e) => (e.attrs.class ?? '').split(' ').includes(cls));

describe('the XML checker itself', () => {
  it('accepts well-formed XML and refuses each kind of malformation', () => {
    expect(parseXml('<?xml version="1.0"?>\n<a x="1"><b y=\'&lt;2&gt;\'/>t&amp;u</a>\n').map((e) => e.name)).toEqual(['a', 'b']);
    for (const bad of ['<a><b></a></b>', '<a x=1/>', '<a x="1" x="2"/>', '<a>&nbsp;</a>', '<a/><b/>', '<a>', '<a>1 < 2</a>', '<a x="<"/>']) {
      expect(() => parseXml(bad), bad).toThrow();
    }
  });
});

describe('frontier chart', () => {
  it('is well-formed XML with one marker per vertex at its exact values, placed by the axes', async () => {
    const f = await computeFrontier(specScenario(1500, 1e-4));
    const points = f.vertices.map((v) => ({
      meanResponseTime: v.figures.meanResponseTime,
      meanPower: v.figures.meanPower,
      controlLimit: summarizePolicy(v.policy, 32).controlLimit,
    }));
    const svg = renderFrontierSvg(points, {
      target: { kind: 'latency', seconds: 5e-3 },
      optimum: { meanResponseTime: 5e-3, meanPower: 77.5 },
      powerFloor: f.powerBound.infimum,
      title: 'a <title> & "quotes"',
    });
    const els = parseXml(svg);
    expect(els[0].name).toBe('svg');
    expect(els.find((e) => e.name === 'title')!.text).toBe('a <title> & "quotes"');
    const markers = byClass(els, 'vertex');
    expect(markers).toHaveLength(points.length);
    markers.forEach((m, i) => {
      expect(Number(m.attrs['data-latency-ms'])).toBe(points[i].meanResponseTime * 1e3);
      expect(Number(m.attrs['data-power-w'])).toBe(points[i].meanPower);
      expect(Number(m.attrs['data-control-limit'])).toBe(points[i].controlLimit);
    });
    // Latency grows to the right and power falls down the page along the frontier.
    for (let i = 1; i < markers.length; i++) {
      expect(Number(markers[i].attrs.cx)).toBeGreaterThan(Number(markers[i - 1].attrs.cx));
      expect(Number(markers[i].attrs.cy)).toBeGreaterThan(Number(markers[i - 1].attrs.cy));
    }
    // Pixel positions are the linear map of the labelled ticks: read two tick labels of each
    // axis back and place every marker from them.
    const ticks = els.filter((e) => e.name === 'text' && e.parent !== null && e.parent.attrs.class === 'ticks');
    const xt = ticks.filter((t) => t.attrs['text-anchor'] === 'middle').map((t) => ({ v: Number(t.text), px: Number(t.attrs.x) }));
    const yt = ticks.filter((t) => t.attrs['text-anchor'] === 'end').map((t) => ({ v: Number(t.text), px: Number(t.attrs.y) - 4 }));
    expect(xt.length).toBeGreaterThanOrEqual(3);
    expect(yt.length).toBeGreaterThanOrEqual(3);
    const place = (t: { v: number; px: number }[], v: number): number => t[0].px + ((v - t[0].v) / (t[1].v - t[0].v)) * (t[1].px - t[0].px);
    markers.forEach((m, i) => {
      expect(Math.abs(Number(m.attrs.cx) - place(xt, points[i].meanResponseTime * 1e3))).toBeLessThan(0.02);
      expect(Math.abs(Number(m.attrs.cy) - place(yt, points[i].meanPower))).toBeLessThan(0.02);
    });
    const polyline = byClass(els, 'frontier')[0];
    expect(polyline.attrs.points.split(' ')).toHaveLength(points.length);
    expect(byClass(els, 'optimum')).toHaveLength(1);
    expect(byClass(els, 'target')).toHaveLength(1);
    expect(byClass(els, 'power-floor')).toHaveLength(1);
  });
});

describe('policy chart', () => {
  it('draws every state of a solved policy and marks the control limit', async () => {
    const r = await solveScenario(specScenario(4000, 1e-3));
    const svg = renderPolicySvg({ ...r.policy, maxBatchSize: 32 });
    const els = parseXml(svg);
    const states = byClass(els, 'state');
    expect(states.length).toBeGreaterThan(r.policy.controlLimit + 32);
    for (const s of states) expect(Number(s.attrs['data-action'])).toBe(r.policy.actions[Number(s.attrs['data-queue'])]);
    // The spec's λ = 4000 optimum (control limit 11) serves partial batches further up: drawn as deviations.
    expect(r.policy.controlLimit).toBe(11);
    const deviations = byClass(els, 'deviation');
    expect(deviations.length).toBeGreaterThan(0);
    for (const d of deviations) expect(r.policy.deviations.map((x) => x.queue)).toContain(Number(d.attrs['data-queue']));
    const limit = byClass(els, 'control-limit')[0];
    expect(Number(limit.attrs['data-queue'])).toBe(11);
    const x11 = states.find((s) => s.attrs['data-queue'] === '11')!;
    expect(limit.attrs.x1).toBe(x11.attrs.cx);
  });
});

describe('nice axes', () => {
  it('cover the data with 1-2-2.5-5 steps', () => {
    expect(niceAxis(3.75, 7.76, 6).ticks).toEqual([3, 4, 5, 6, 7, 8]);
    expect(niceAxis(3.75, 7.76, 10).ticks).toEqual([3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8]);
    expect(niceAxis(74.2, 89.9, 5).ticks).toEqual([70, 75, 80, 85, 90]);
    const a = niceAxis(0.0012, 0.0031, 4);
    expect(a.min).toBeLessThanOrEqual(0.0012);
    expect(a.max).toBeGreaterThanOrEqual(0.0031);
  });
});
