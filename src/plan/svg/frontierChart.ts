import { frame } from './frame.js';
import { el, px, svgDocument, text } from './xml.js';

/**
 * The latency–power frontier as an SVG chart: mean response time (ms) across (or, with
 * `latency: 'p99'`, each vertex's exact p99), mean power (W) up, one marker per frontier vertex joined by the frontier's segments, each marker
 * carrying its exact values in data-* attributes and a tooltip. Optionally a latency target
 * or power budget line and the constrained optimum on it.
 */
export interface FrontierChartPoint {
  /** Seconds. */
  readonly meanResponseTime: number;
  /** Watts. */
  readonly meanPower: number;
  readonly controlLimit: number;
  /** The vertex's exact p99 response time (s): required by `latency: 'p99'`, drawn in data-p99-ms when given. */
  readonly p99?: number;
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
  /** What the x axis shows: the mean (default) or the p99 of the response time. */
  readonly latency?: 'mean' | 'p99';
}

/** Vertices get a control-limit label only when there are few enough to read. */
const MAX_LABELS = 16;

export function renderFrontierSvg(points: readonly FrontierChartPoint[], o: FrontierChartOptions = {}): string {
  const width = o.width ?? 720;
  const height = o.height ?? 440;
  const p99Axis = o.latency === 'p99';
  // The x value of a vertex: its mean, or its p99 on the p99 variant.
  const xs = (p: FrontierChartPoint): number => {
    if (!p99Axis) return p.meanResponseTime;
    if (p.p99 === undefined) throw new Error(`renderFrontierSvg: the vertex with control limit ${p.controlLimit} has no p99`);
    return p.p99;
  };
  const ms = points.map((p) => xs(p) * 1e3);
  // A latency target and the constrained optimum are means: they have no place on a p99 axis (a budget does).
  const target = p99Axis && o.target?.kind === 'latency' ? undefined : o.target;
  const optimum = p99Axis ? undefined : o.optimum;
  const watts = points.map((p) => p.meanPower);
  const extraX = target?.kind === 'latency' ? [target.seconds * 1e3] : [];
  const extraY = [...(target?.kind === 'power' ? [target.watts] : []), ...(o.powerFloor !== undefined ? [o.powerFloor] : [])];
  const f = frame({
    width,
    height,
    title: o.title ?? 'Latency–power frontier',
    xLabel: p99Axis ? 'p99 response time (ms)' : 'mean response time E[R] (ms)',
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
  if (target) {
    const t = target;
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
  const coords = points.map((p) => `${px(f.x(xs(p) * 1e3))},${px(f.y(p.meanPower))}`);
  body.push(el('polyline', { class: 'frontier', points: coords.join(' '), fill: 'none', stroke: '#2c6fbb', 'stroke-width': 2 }));
  const markers = points.map((p, i) =>
    el(
      'circle',
      {
        class: 'vertex',
        cx: f.x(xs(p) * 1e3),
        cy: f.y(p.meanPower),
        r: 4,
        fill: '#2c6fbb',
        'data-index': i,
        'data-latency-ms': String(p.meanResponseTime * 1e3),
        'data-power-w': String(p.meanPower),
        'data-control-limit': p.controlLimit,
        'data-p99-ms': p.p99 !== undefined ? String(p.p99 * 1e3) : undefined,
      },
      [el('title', {}, [`E[R] ${(p.meanResponseTime * 1e3).toFixed(4)} ms${p.p99 !== undefined ? `, p99 ${(p.p99 * 1e3).toFixed(4)} ms` : ''}, E[P] ${p.meanPower.toFixed(4)} W, control limit ${p.controlLimit}`])],
    ),
  );
  body.push(el('g', { class: 'vertices' }, markers));
  if (points.length <= MAX_LABELS) {
    const labels = points.map((p) =>
      text(`M=${p.controlLimit}`, { class: 'vertex-label', 'data-control-limit': p.controlLimit, x: f.x(xs(p) * 1e3) + 6, y: f.y(p.meanPower) - 6, 'font-size': 10, fill: '#555' }),
    );
    body.push(el('g', { class: 'labels' }, labels));
  }
  if (optimum) {
    const cx = f.x(optimum.meanResponseTime * 1e3);
    const cy = f.y(optimum.meanPower);
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
          'data-latency-ms': String(optimum.meanResponseTime * 1e3),
          'data-power-w': String(optimum.meanPower),
        },
        [el('title', {}, [`constrained optimum: E[R] ${(optimum.meanResponseTime * 1e3).toFixed(4)} ms, E[P] ${optimum.meanPower.toFixed(4)} W`])],
      ),
    );
  }
  return svgDocument(width, height, o.title ?? 'Latency–power frontier', body);
}
