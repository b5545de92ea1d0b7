import { frame } from './frame.js';
import { el, px, svgDocument, text } from './xml.js';

/**
 * Response-time percentiles against load as an SVG chart: arrival rate (requests/s) across,
 * response time (ms) up; per policy a shaded band from p50 to p99 and a dashed p99.9 line, one
 * marker per rate carrying its exact values (and control limit) in data-* attributes and a tooltip.
 */
export interface BandPoint {
  /** Requests/s. */
  readonly arrivalRate: number;
  /** Seconds. */
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly controlLimit: number;
  /** Simulated series: the 95 % half-width of p99, seconds (drawn as a whisker). */
  readonly p99HalfWidth?: number;
}

export interface BandSeries {
  readonly label: string;
  readonly points: readonly BandPoint[];
  /** `simulated` series (exported settings) are drawn dotted, with p99 whiskers; default exact. */
  readonly method?: 'exact' | 'simulated';
}

export interface BandChartOptions {
  readonly title: string;
  /** The scenario, on a second line. */
  readonly subtitle?: string;
  readonly width?: number;
  readonly height?: number;
}

const COLOURS = ['#2c6fbb', '#e67e22', '#27ae60', '#8e44ad', '#c0392b'];

export function renderLatencyBandsSvg(series: readonly BandSeries[], o: BandChartOptions): string {
  const width = o.width ?? 960;
  const height = o.height ?? 480;
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) throw new Error('renderLatencyBandsSvg: no points to draw');
  const rates = all.map((p) => p.arrivalRate);
  const f = frame({
    width,
    height,
    title: o.title,
    subtitle: o.subtitle,
    xLabel: 'arrival rate λ (requests/s)',
    yLabel: 'response time (ms)',
    xRange: [Math.min(...rates), Math.max(...rates)],
    // From 0: bands of different policies are compared by height, which a cut axis distorts.
    yRange: [0, Math.max(...all.map((p) => Math.max(p.p999, p.p99 + (Number.isFinite(p.p99HalfWidth) ? (p.p99HalfWidth ?? 0) : 0)) * 1e3))],
  });
  const body = [...f.parts];
  const at = (p: BandPoint, v: number): string => `${px(f.x(p.arrivalRate))},${px(f.y(v * 1e3))}`;
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const pts = s.points;
    const band = [...pts.map((p) => at(p, p.p50)), ...[...pts].reverse().map((p) => at(p, p.p99))].join(' ');
    const simulated = s.method === 'simulated';
    const markers = pts.map((p) => {
      const hw = p.p99HalfWidth;
      const whisker =
        simulated && hw !== undefined && Number.isFinite(hw)
          ? [el('line', { class: 'whisker', x1: f.x(p.arrivalRate), x2: f.x(p.arrivalRate), y1: f.y((p.p99 - hw) * 1e3), y2: f.y((p.p99 + hw) * 1e3), stroke: colour, 'stroke-width': 1 })]
          : [];
      const what = simulated
        ? `p99 ${ms(p.p99)}${hw !== undefined ? ` ± ${ms(hw)} (95 %)` : ''}, simulated`
        : `p99 ${ms(p.p99)}, control limit ${p.controlLimit}`;
      return el('g', {}, [
        ...whisker,
        el(
          'circle',
          {
            class: 'point',
            cx: f.x(p.arrivalRate),
            cy: f.y(p.p99 * 1e3),
            r: 3,
            fill: simulated ? 'white' : colour,
            stroke: colour,
            'data-arrival-rate': String(p.arrivalRate),
            'data-p50-ms': String(p.p50 * 1e3),
            'data-p99-ms': String(p.p99 * 1e3),
            'data-p999-ms': String(p.p999 * 1e3),
            'data-control-limit': p.controlLimit,
            'data-method': simulated ? 'simulated' : 'exact',
            ...(simulated && hw !== undefined ? { 'data-p99-half-width-ms': String(hw * 1e3) } : {}),
          },
          [el('title', {}, [`λ ${p.arrivalRate.toFixed(1)} /s: p50 ${ms(p.p50)}, ${what}, p99.9 ${ms(p.p999)}`])],
        ),
      ]);
    });
    body.push(
      el('g', { class: 'series', 'data-series': i, 'data-label': s.label, 'data-method': simulated ? 'simulated' : 'exact' }, [
        el('polygon', { class: 'band', points: band, fill: colour, 'fill-opacity': simulated ? 0.08 : 0.18, stroke: colour, 'stroke-width': 1, ...(simulated ? { 'stroke-dasharray': '2 2' } : {}) }),
        el('polyline', { class: 'p50', points: pts.map((p) => at(p, p.p50)).join(' '), fill: 'none', stroke: colour, 'stroke-width': 1 }),
        el('polyline', { class: 'p99', points: pts.map((p) => at(p, p.p99)).join(' '), fill: 'none', stroke: colour, 'stroke-width': 2 }),
        el('polyline', { class: 'p999', points: pts.map((p) => at(p, p.p999)).join(' '), fill: 'none', stroke: colour, 'stroke-width': 1, 'stroke-dasharray': '5 3' }),
        el('g', { class: 'points' }, markers),
      ]),
    );
  });
  body.push(legend(series, f.plot.left + 12, f.plot.top + 14));
  return svgDocument(width, height, o.subtitle !== undefined ? `${o.title} — ${o.subtitle}` : o.title, body);
}

function ms(seconds: number): string {
  return `${(seconds * 1e3).toFixed(4)} ms`;
}

function legend(series: readonly BandSeries[], x: number, y: number): string {
  const rows = series.map((s, i) =>
    el('g', {}, [
      el('rect', { x, y: y + 18 * i - 9, width: 22, height: 10, fill: COLOURS[i % COLOURS.length], 'fill-opacity': 0.3, stroke: COLOURS[i % COLOURS.length] }),
      text(s.label, { x: x + 30, y: y + 18 * i }),
    ]),
  );
  // A light backing keeps the legend readable where a band passes under it.
  const w = 40 + 6.2 * Math.max(...series.map((s) => s.label.length));
  const back = el('rect', { x: x - 6, y: y - 14, width: w, height: 18 * series.length + 6, fill: 'white', 'fill-opacity': 0.85 });
  return el('g', { class: 'legend', 'font-size': 11, fill: '#333' }, [back, ...rows]);
}
