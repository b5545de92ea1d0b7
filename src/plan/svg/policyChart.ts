import { frame } from './frame.js';
import { el, px, svgDocument, text } from './xml.js';

/**
 * A policy as an SVG chart: the action (0 = wait, b = serve b) against the queue length,
 * as a step line with one marker per state, the pure control-limit policy with the same
 * limit drawn faintly for comparison, and the control limit marked.
 */
export interface PolicyChartInput {
  /** Action per queue length 0..S. */
  readonly actions: readonly number[];
  readonly controlLimit: number;
  readonly maxBatchSize: number;
}

export interface PolicyChartOptions {
  readonly title?: string;
  readonly width?: number;
  readonly height?: number;
  /** Largest queue length to draw (default: enough to show the limit, every deviation and B more). */
  readonly maxQueue?: number;
}

export function policyChartRange(p: PolicyChartInput): number {
  let lastDeviation = p.controlLimit;
  for (let s = 0; s < p.actions.length; s++) {
    const expected = s < p.controlLimit ? 0 : Math.min(s, p.maxBatchSize);
    if (p.actions[s] !== expected) lastDeviation = s;
  }
  return Math.min(p.actions.length - 1, Math.max(lastDeviation, p.controlLimit, p.maxBatchSize) + p.maxBatchSize);
}

export function renderPolicySvg(p: PolicyChartInput, o: PolicyChartOptions = {}): string {
  const width = o.width ?? 720;
  const height = o.height ?? 400;
  const B = p.maxBatchSize;
  const top = Math.max(1, Math.min(o.maxQueue ?? policyChartRange(p), p.actions.length - 1));
  const title = o.title ?? `Policy: action by queue length (control limit ${p.controlLimit})`;
  const f = frame({
    width,
    height,
    title,
    xLabel: 'queue length s (requests waiting at a decision)',
    yLabel: 'action: batch size served (0 = wait)',
    xRange: [0, top],
    yRange: [0, B],
  });
  const body = [...f.parts];
  const step = (act: (s: number) => number): string => {
    let d = `M${px(f.x(0))},${px(f.y(act(0)))}`;
    for (let s = 1; s <= top; s++) d += `H${px(f.x(s))}V${px(f.y(act(s)))}`;
    return d;
  };
  const reference = (s: number): number => (s < p.controlLimit ? 0 : Math.min(s, B));
  body.push(el('path', { class: 'control-limit-reference', d: step(reference), fill: 'none', stroke: '#bbb', 'stroke-width': 1, 'stroke-dasharray': '4 3' }));
  body.push(el('path', { class: 'policy', d: step((s) => p.actions[s]), fill: 'none', stroke: '#2c6fbb', 'stroke-width': 2 }));
  const markers: string[] = [];
  for (let s = 0; s <= top; s++) {
    const a = p.actions[s];
    const deviates = a !== reference(s);
    markers.push(
      el(
        'circle',
        {
          class: deviates ? 'state deviation' : 'state',
          cx: f.x(s),
          cy: f.y(a),
          r: deviates ? 3.5 : 2.5,
          fill: deviates ? '#e67e22' : '#2c6fbb',
          'data-queue': s,
          'data-action': a,
        },
        [el('title', {}, [`s = ${s}: ${a === 0 ? 'wait' : `serve ${a}`}`])],
      ),
    );
  }
  body.push(el('g', { class: 'states' }, markers));
  const xl = f.x(p.controlLimit);
  body.push(el('line', { class: 'control-limit', x1: xl, y1: f.plot.top, x2: xl, y2: f.plot.bottom, stroke: '#c0392b', 'stroke-dasharray': '6 4', 'stroke-width': 1.5, 'data-queue': p.controlLimit }));
  body.push(text(`control limit M = ${p.controlLimit}`, { x: xl + 6, y: f.plot.top + 14, fill: '#c0392b', class: 'control-limit-label' }));
  const lx = f.plot.right - 250;
  const ly = f.plot.bottom - 44;
  body.push(
    el('g', { class: 'legend', 'font-size': 11, fill: '#333' }, [
      el('line', { x1: lx, y1: ly, x2: lx + 24, y2: ly, stroke: '#bbb', 'stroke-dasharray': '4 3' }),
      text('pure control-limit policy, same limit', { x: lx + 30, y: ly + 4 }),
      el('circle', { cx: lx + 12, cy: ly + 18, r: 3.5, fill: '#e67e22' }),
      text('state where the policy deviates from it', { x: lx + 30, y: ly + 22 }),
    ]),
  );
  return svgDocument(width, height, title, body);
}
