import { linear, niceAxis, tickLabel, type Axis } from './scale.js';
import { el, text } from './xml.js';

/** A plot area with two labelled axes, ticks and a light grid. */
export interface Frame {
  readonly x: (v: number) => number;
  readonly y: (v: number) => number;
  readonly xAxis: Axis;
  readonly yAxis: Axis;
  /** Axes, grid, tick labels, axis labels and title, serialised. */
  readonly parts: string[];
  readonly plot: { readonly left: number; readonly right: number; readonly top: number; readonly bottom: number };
}

export interface FrameSpec {
  readonly width: number;
  readonly height: number;
  readonly title: string;
  /** A second, smaller title line (e.g. the scenario); the plot starts lower to make room. */
  readonly subtitle?: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly xRange: readonly [number, number];
  readonly yRange: readonly [number, number];
  readonly xTicks?: number;
  readonly yTicks?: number;
}

const MARGIN = { left: 72, right: 24, top: 40, bottom: 52 };
const SUBTITLE_ROOM = 16;

export function frame(s: FrameSpec): Frame {
  const top = MARGIN.top + (s.subtitle !== undefined ? SUBTITLE_ROOM : 0);
  const plot = { left: MARGIN.left, right: s.width - MARGIN.right, top, bottom: s.height - MARGIN.bottom };
  const xAxis = niceAxis(s.xRange[0], s.xRange[1], s.xTicks ?? 6);
  const yAxis = niceAxis(s.yRange[0], s.yRange[1], s.yTicks ?? 5);
  const x = linear(xAxis, plot.left, plot.right);
  const y = linear(yAxis, plot.bottom, plot.top);
  const parts: string[] = [];
  const grid: string[] = [];
  const labels: string[] = [];
  for (const t of xAxis.ticks) {
    grid.push(el('line', { x1: x(t), y1: plot.top, x2: x(t), y2: plot.bottom }));
    labels.push(text(tickLabel(t, xAxis), { x: x(t), y: plot.bottom + 18, 'text-anchor': 'middle' }));
  }
  for (const t of yAxis.ticks) {
    grid.push(el('line', { x1: plot.left, y1: y(t), x2: plot.right, y2: y(t) }));
    labels.push(text(tickLabel(t, yAxis), { x: plot.left - 8, y: y(t) + 4, 'text-anchor': 'end' }));
  }
  parts.push(el('g', { class: 'grid', stroke: '#e4e4e4', 'stroke-width': 1 }, grid));
  parts.push(
    el('g', { class: 'axes', stroke: '#333', 'stroke-width': 1 }, [
      el('line', { x1: plot.left, y1: plot.bottom, x2: plot.right, y2: plot.bottom }),
      el('line', { x1: plot.left, y1: plot.top, x2: plot.left, y2: plot.bottom }),
    ]),
  );
  parts.push(el('g', { class: 'ticks', fill: '#333' }, labels));
  parts.push(text(s.xLabel, { x: (plot.left + plot.right) / 2, y: s.height - 12, 'text-anchor': 'middle', class: 'x-label' }));
  parts.push(
    text(s.yLabel, {
      x: 16,
      y: (plot.top + plot.bottom) / 2,
      'text-anchor': 'middle',
      transform: `rotate(-90 16 ${(plot.top + plot.bottom) / 2})`,
      class: 'y-label',
    }),
  );
  parts.push(text(s.title, { x: plot.left, y: 22, 'font-size': 14, 'font-weight': 'bold', class: 'title' }));
  if (s.subtitle !== undefined) parts.push(text(s.subtitle, { x: plot.left, y: 40, 'font-size': 11, fill: '#444', class: 'subtitle' }));
  return { x, y, xAxis, yAxis, parts, plot };
}
