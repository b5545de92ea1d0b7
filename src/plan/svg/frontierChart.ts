import { frame } from './frame.js';
import { el, px, svgDocument, text } from './xml.js';

/**
 * The latency–power frontier as an SVG chart: mean response time (ms) across, mean power
 * (W) up, one marker per frontier vertex joined by the frontier's segments, each marker
 * carrying its exact values in data-* attributes and a tooltip. Optionally a latency target
 * or power budget line and the constrained optimum on it.
 */
export interface FrontierChartPoint {
  /** Seconds. */
  readonly meanResponseTime: number;
  /** Watts. */
  readonly meanPower: number;
  readonly controlLimit: number;
}

export interface FrontierChartOptions {
  readonly title?: string;
  readonly width?: number;
  readonly height?: number;
  /** A latency target (s) or power budget (W) to draw. */
  readonly target?: { readonly kind: 'latency'; readonly seconds: number } | { readonly kind: 'power'; readonly watts: number };
  /** The constrained optimum to mark (a point on a segment, e.g. the mix). */
  readonly optimum?: { readonly meanResponseTime: number; readonly meanPower: number };
  /** Least mean power any policy can approach (W): drawn as a dashed floor. */
  readonly powerFloor?: number;
}

/** Vertices get a control-limit label only when there are few enough to read. */
const MAX_LABELS = 16;

export function renderFrontierSvg(points: readonly FrontierChartPoint[], o: FrontierChartOptions = {}): string {
  const width = o.width ?? 720;
  const height = o.height ?? 440;
  const ms = points.map((p) => p.meanResponseTime * 1e3);
  const watts = points.map((p) => p.meanPower);
  const extraX = o.target?.kind === 'latency' ? [o.target.seconds * 1e3] : [];
  const extraY = [...(o.target?.kind === 'power' ? [o.target.watts] : []), ...(o.powerFloor !== undefined ? [o.powerFloor] : [])];
  const f = frame({
    width,
    height,
    title: o.title ?? 'Latency–power frontier',
    xLabel: 'mean response time E[R] (ms)',
    yLabel: 'mean power E[P] (W)',
    xRange: [Math.min(...ms, ...extraX), Math.max(...ms, ...extraX)],
    yRange: [Math.min(...watts, ...extraY), Math.max(...watts, ...extraY)],
  });
  const body = [...f.parts];
  const { plot } = f;
  if (o.powerFloor !== undefined) {
    const yy = f.y(o.powerFloor);
    body.push(el('line', { class: 'power-floor', x1: plot.left, y1: yy, x2: plot.right, y2: yy, stroke: '#999', 'stroke-dasharray': '2 4' }));
    // Below the line at the left: the frontier's low-power end sits just above it on the right.
    body.push(text(`least possible mean power ${o.powerFloor.toFixed(2)} W`, { x: plot.left + 6, y: yy + 14, fill: '#777', 'font-size': 11, class: 'power-floor-label' }));
  }
  if (o.target) {
    const t = o.target;
    const line =
      t.kind === 'latency'
        ? { x1: f.x(t.seconds * 1e3), y1: plot.top, x2: f.x(t.seconds * 1e3), y2: plot.bottom }
        : { x1: plot.left, y1: f.y(t.watts), x2: plot.right, y2: f.y(t.watts) };
    const label = t.kind === 'latency' ? `target ${(t.seconds * 1e3).toFixed(3)} ms` : `budget ${t.watts.toFixed(2)} W`;
    body.push(el('line', { class: 'target', ...line, stroke: '#c0392b', 'stroke-dasharray': '6 4', 'stroke-width': 1.5 }));
    const at =
      t.kind === 'latency'
        ? { x: line.x1 + 6, y: plot.top + 14, 'text-anchor': 'start' }
        : { x: plot.right - 4, y: line.y1 - 6, 'text-anchor': 'end' };
    body.push(text(label, { ...at, fill: '#c0392b', class: 'target-label' }));
  }
  const coords = points.map((p) => `${px(f.x(p.meanResponseTime * 1e3))},${px(f.y(p.meanPower))}`);
  body.push(el('polyline', { class: 'frontier', points: coords.join(' '), fill: 'none', stroke: '#2c6fbb', 'stroke-width': 2 }));
  const markers = points.map((p, i) =>
    el(
      'circle',
      {
        class: 'vertex',
        cx: f.x(p.meanResponseTime * 1e3),
        cy: f.y(p.meanPower),
        r: 4,
        fill: '#2c6fbb',
        'data-index': i,
        'data-latency-ms': String(p.meanResponseTime * 1e3),
        'data-power-w': String(p.meanPower),
        'data-control-limit': p.controlLimit,
      },
      [el('title', {}, [`E[R] ${(p.meanResponseTime * 1e3).toFixed(4)} ms, E[P] ${p.meanPower.toFixed(4)} W, control limit ${p.controlLimit}`])],
    ),
  );
  body.push(el('g', { class: 'vertices' }, markers));
  if (points.length <= MAX_LABELS) {
    const labels = points.map((p) =>
      text(`M=${p.controlLimit}`, { x: f.x(p.meanResponseTime * 1e3) + 6, y: f.y(p.meanPower) - 6, 'font-size': 10, fill: '#555' }),
    );
    body.push(el('g', { class: 'labels' }, labels));
  }
  if (o.optimum) {
    const cx = f.x(o.optimum.meanResponseTime * 1e3);
    const cy = f.y(o.optimum.meanPower);
    body.push(
      el(
        'circle',
        {
          class: 'optimum',
          cx,
          cy,
          r: 6,
          fill: 'none',
          stroke: '#c0392b',
          'stroke-width': 2,
          'data-latency-ms': String(o.optimum.meanResponseTime * 1e3),
          'data-power-w': String(o.optimum.meanPower),
        },
        [el('title', {}, [`constrained optimum: E[R] ${(o.optimum.meanResponseTime * 1e3).toFixed(4)} ms, E[P] ${o.optimum.meanPower.toFixed(4)} W`])],
      ),
    );
  }
  return svgDocument(width, height, o.title ?? 'Latency–power frontier', body);
}
