import type { ClassesSolveResult } from '../solve/classes/result.js';
import { percentileText } from './format.js';

const ms = (s: number): string => `${(s * 1e3).toFixed(4)} ms`;

/** A multi-class result as text: the certified interval, each class's figures and control limit, the switching curve. */
export function formatClassesSolve(r: ClassesSolveResult): string {
  const gap = (r.averageCostUpper - r.averageCostLower) / Math.abs(r.averageCostLower);
  const lines = [
    `optimal average cost g* ∈ [${r.averageCostLower.toPrecision(12)}, ${r.averageCostUpper.toPrecision(12)}] (relative width ${gap.toExponential(2)})`,
    `policy cost ${r.averageCost.toPrecision(12)}, mean power ${r.meanPower.toFixed(4)} W`,
  ];
  r.classes.forEach((c, i) => {
    const limit = r.policy.controlLimits[i];
    lines.push(
      `class ${c.name}: E[R] ${ms(c.meanResponseTime)}, utilisation ${(100 * c.utilization).toFixed(2)} %, mean batch ${c.meanBatchSize.toFixed(3)}, ` +
        (limit === null ? 'never served alone within S' : `served alone from ${limit} waiting`),
    );
  });
  // One class: the single-class solve's percentiles, under the class's name; several: why there are none.
  const percentiles = percentileText(r.single ?? r);
  if (percentiles !== undefined) lines.push(`${r.single ? `class ${r.classes[0].name}: ` : ''}response time ${percentiles}`);
  const curve = r.policy.switchingCurve;
  if (curve) {
    const shown = curve.slice(0, 24).map((v) => (v === null ? '–' : `${v}`)).join(' ');
    lines.push(`switching curve (n_1 = 0, 1, …: smallest n_2 served as class ${r.classes[1].name}): ${shown}${curve.length > 24 ? ' …' : ''}`);
  }
  const s = r.solver;
  const where = [s.threads !== undefined && s.threads > 1 ? `${s.threads} threads` : '', s.adapter ? `${s.gpuIterations ?? 0} f32 sweeps on ${s.adapter}` : ''].filter((x) => x).join(', ');
  lines.push(`solver: ${s.backend} ${s.method}, S = (${r.policy.maxQueue.join(', ')}), ${s.states} states, ${s.iterations} iterations${where ? ` (${where})` : ''}, ${s.seconds.toFixed(2)} s, ${s.stopReason}, tail mass ${s.tailMass.map((m) => m.toExponential(1)).join(' / ')}`);
  return lines.join('\n');
}
