import type { ClassesSolveResult } from '../../solve/classes/result.js';
import { frame } from './frame.js';
import { el, px, svgDocument, text } from './xml.js';

/**
 * A two-class policy as an SVG chart (docs/model.md §10): one cell per state (n_1, n_2) of the
 * drawn grid, coloured by the action (wait; serve class 1 with b, blue, darker for larger b;
 * serve class 2 with b, orange), the switching curve (the boundary below which class 2 is not
 * served) as a step line, each class's control limit marked on its axis, the scenario in the
 * title. Each cell carries its state and action as data attributes, so the chart can be read back.
 */
export interface SwitchingChartOptions {
  readonly title?: string;
  readonly width?: number;
  readonly height?: number;
  /** Largest n_1 and n_2 drawn (default: a few full batches past the control limits, within S). */
  readonly maxQueue?: readonly [number, number];
}

const WAIT = '#eeeeee';
const HUES = [
  [44, 111, 187],
  [230, 126, 34],
] as const;

/** The class's colour, from light (b = 1) to full (b = B). */
function shade(c: number, b: number, B: number): string {
  const t = B > 1 ? 0.35 + (0.65 * (b - 1)) / (B - 1) : 1;
  const mix = (v: number) => Math.round(255 - (255 - v) * t);
  return `rgb(${HUES[c].map(mix).join(',')})`;
}

/** The grid drawn by default: room for the limits, the curve's turns and a few batches more, within S. */
export function switchingChartRange(r: ClassesSolveResult): [number, number] {
  const [S1, S2] = r.policy.maxQueue;
  const [B1, B2] = r.classes.map((c) => c.maxBatchSize);
  const [L1, L2] = r.policy.controlLimits.map((v) => v ?? 0);
  const curve = r.policy.switchingCurve ?? [];
  // The last n_1 where the curve still moves, and its highest point.
  let turn = 0;
  for (let n = 1; n < curve.length; n++) if (curve[n] !== curve[n - 1]) turn = n;
  const high = Math.max(0, ...curve.slice(0, turn + 1).map((v) => v ?? 0));
  return [Math.min(S1, Math.max(L1, turn, 3 * B1) + 2 * B1 + 4), Math.min(S2, Math.max(L2, high, 3 * B2) + 2 * B2 + 4)];
}

export function renderSwitchingSvg(r: ClassesSolveResult, o: SwitchingChartOptions = {}): string {
  if (r.classes.length !== 2) throw new Error(`the switching chart draws two classes (got ${r.classes.length})`);
  const width = o.width ?? 720;
  const height = o.height ?? 560;
  const [S1, S2] = r.policy.maxQueue;
  const range = o.maxQueue ?? switchingChartRange(r);
  const top = [Math.max(1, Math.min(range[0], S1)), Math.max(1, Math.min(range[1], S2))];
  const [c1, c2] = r.classes;
  const title = o.title ?? `Switching curve: ${c1.name} against ${c2.name}`;
  const subtitle =
    `${c1.name}: λ = ${+c1.arrivalRate.toPrecision(6)} /s, B = ${c1.maxBatchSize}; ${c2.name}: λ = ${+c2.arrivalRate.toPrecision(6)} /s, B = ${c2.maxBatchSize}; ` +
    `g* ∈ [${r.averageCostLower.toPrecision(8)}, ${r.averageCostUpper.toPrecision(8)}], S = (${S1}, ${S2})`;
  const f = frame({
    width,
    height,
    title,
    subtitle,
    xLabel: `n₁: ${c1.name} requests waiting (the cell from n to n + 1)`,
    yLabel: `n₂: ${c2.name} requests waiting`,
    xRange: [0, top[0] + 1],
    yRange: [0, top[1] + 1],
  });
  const body: string[] = [];
  const cells: string[] = [];
  const stride = S2 + 1;
  for (let n1 = 0; n1 <= top[0]; n1++) {
    for (let n2 = 0; n2 <= top[1]; n2++) {
      const x = n1 * stride + n2;
      const c = r.policy.serveClass[x];
      const b = r.policy.batch[x];
      const what = c < 0 ? 'wait' : `serve ${b} of ${r.classes[c].name}`;
      cells.push(
        el(
          'rect',
          {
            class: 'state',
            x: f.x(n1),
            y: f.y(n2 + 1),
            width: f.x(n1 + 1) - f.x(n1),
            height: f.y(n2) - f.y(n2 + 1),
            fill: c < 0 ? WAIT : shade(c, b, r.classes[c].maxBatchSize),
            stroke: 'white',
            'stroke-width': 0.5,
            'data-n1': n1,
            'data-n2': n2,
            'data-class': c,
            'data-batch': b,
          },
          [el('title', {}, [`n = (${n1}, ${n2}): ${what}`])],
        ),
      );
    }
  }
  // The cells cover the plot, so the frame's light grid (parts[0]) is left out; axes and labels go on top.
  body.push(el('g', { class: 'states' }, cells), ...f.parts.slice(1));
  body.push(switchingPath(r.policy.switchingCurve ?? [], top, f));
  body.push(...limitMarks(r, top, f));
  body.push(legend(r, f.plot));
  return svgDocument(width, height, title, body);
}

/** The boundary below which class 2 is not served: at n_1, between n_2 = v − 1 and v. */
function switchingPath(curve: readonly (number | null)[], top: number[], f: ReturnType<typeof frame>): string {
  let d = '';
  let open = false;
  for (let n1 = 0; n1 <= top[0] && n1 < curve.length; n1++) {
    const v = curve[n1];
    if (v === null || v > top[1]) {
      open = false;
      continue;
    }
    const y = px(f.y(v));
    d += open ? `V${y}H${px(f.x(n1 + 1))}` : `M${px(f.x(n1))},${y}H${px(f.x(n1 + 1))}`;
    open = true;
  }
  return el('path', { class: 'switching-curve', d: d === '' ? 'M0,0' : d, fill: 'none', stroke: '#c0392b', 'stroke-width': 2.5 });
}

/** Each class's control limit: n_1 = L_1 at n_2 = 0, n_2 = L_2 at n_1 = 0. */
function limitMarks(r: ClassesSolveResult, top: number[], f: ReturnType<typeof frame>): string[] {
  const [L1, L2] = r.policy.controlLimits;
  const out: string[] = [];
  if (L1 !== null && L1 <= top[0]) {
    const x = f.x(L1);
    out.push(el('line', { class: 'control-limit', x1: x, y1: f.plot.bottom, x2: x, y2: f.y(1), stroke: '#1b3a5c', 'stroke-width': 3, 'data-class': 0, 'data-limit': L1 }));
    out.push(text(`${r.classes[0].name}: control limit ${L1}`, { x: x + 4, y: f.plot.bottom - 4, fill: '#1b3a5c', 'font-size': 11, class: 'control-limit-label' }));
  }
  if (L2 !== null && L2 <= top[1]) {
    const y = f.y(L2);
    out.push(el('line', { class: 'control-limit', x1: f.plot.left, y1: y, x2: f.x(1), y2: y, stroke: '#7a3d0a', 'stroke-width': 3, 'data-class': 1, 'data-limit': L2 }));
    out.push(text(`${r.classes[1].name}: control limit ${L2}`, { x: f.x(1) + 4, y: y - 4, fill: '#7a3d0a', 'font-size': 11, class: 'control-limit-label' }));
  }
  return out;
}

function legend(r: ClassesSolveResult, plot: { right: number; top: number }): string {
  const x = plot.right - 230;
  const y = plot.top + 8;
  const rows: Array<[string, string]> = [
    [WAIT, 'wait'],
    [shade(0, r.classes[0].maxBatchSize, r.classes[0].maxBatchSize), `serve ${r.classes[0].name} (lighter: smaller b)`],
    [shade(1, r.classes[1].maxBatchSize, r.classes[1].maxBatchSize), `serve ${r.classes[1].name} (lighter: smaller b)`],
  ];
  const parts = [el('rect', { x: x - 6, y: y - 4, width: 232, height: 16 * rows.length + 24, fill: 'white', 'fill-opacity': 0.85, stroke: '#ccc' })];
  rows.forEach(([fill, label], i) => {
    parts.push(el('rect', { x, y: y + 16 * i, width: 12, height: 12, fill, stroke: '#999' }));
    parts.push(text(label, { x: x + 18, y: y + 16 * i + 10 }));
  });
  const ly = y + 16 * rows.length + 8;
  parts.push(el('line', { x1: x, y1: ly, x2: x + 12, y2: ly, stroke: '#c0392b', 'stroke-width': 2.5 }));
  parts.push(text('switching curve', { x: x + 18, y: ly + 4 }));
  return el('g', { class: 'legend', 'font-size': 11, fill: '#333' }, parts);
}
