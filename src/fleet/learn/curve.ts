/** Learning curves as SVG (one line per series, episode across), with the plan's shared chart frame. */
import { frame } from '../../plan/svg/frame.js';
import { el, px, svgDocument, text } from '../../plan/svg/xml.js';

export interface CurveSeries {
  readonly label: string;
  readonly values: readonly number[];
  /** A horizontal reference (e.g. a baseline router's value), drawn dashed. */
  readonly reference?: boolean;
}

const COLOURS = ['#2c6fbb', '#c0392b', '#27ae60', '#8e44ad', '#d35400', '#7f8c8d'];

export function renderCurveSvg(series: readonly CurveSeries[], o: { title: string; yLabel: string; xLabel?: string }): string {
  const width = 720;
  const height = 420;
  const all = series.flatMap((s) => s.values);
  const n = Math.max(2, ...series.map((s) => s.values.length));
  const f = frame({ width, height, title: o.title, xLabel: o.xLabel ?? 'episode', yLabel: o.yLabel, xRange: [1, n], yRange: [Math.min(...all), Math.max(...all)] });
  const body = [...f.parts];
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const pts = s.reference ? [1, n].map((x) => `${px(f.x(x))},${px(f.y(s.values[0]))}`) : s.values.map((v, j) => `${px(f.x(j + 1))},${px(f.y(v))}`);
    body.push(el('polyline', { class: 'series', points: pts.join(' '), fill: 'none', stroke: colour, 'stroke-width': 2, ...(s.reference ? { 'stroke-dasharray': '6 4' } : {}) }));
    body.push(text(s.label, { x: f.plot.right - 6, y: f.plot.top + 16 + 16 * i, 'text-anchor': 'end', fill: colour }));
  });
  return svgDocument(width, height, o.title, body);
}
