import { validateScenario } from '../../model/validate.js';
import { summarizePolicy } from '../../policy/policy.js';
import { comparePolicies, type CompareOptions, type Comparison, type ComparisonRow } from '../../sim/compare.js';
import { compareMmppPolicies } from '../../sim/mmppCompare.js';
import { solveMmppAndPoisson } from '../../solve/mmppPolicies.js';
import { formatDuration, parseDuration } from '../../sim/durations.js';
import { readJsonFile } from '../io.js';
import { progressBar } from '../progress.js';
import { optimalPolicy } from './simulate.run.js';

/** `batchwise compare`, loaded only when it runs (registration: compare.ts). */
export interface CompareFlags {
  requests: number;
  tuningRequests: number;
  seed: number;
  delays?: string;
  json?: boolean;
}

const ms = (s: number): string => (s * 1e3).toFixed(4);

function describeRow(r: ComparisonRow, controlLimit: number | string): string {
  const p = r.simulation.policy;
  if (r.label === 'optimal') return `optimal (serve from ${controlLimit})`;
  if (r.label === 'best triton') {
    const m = /max_queue_delay_microseconds=([0-9.e+-]+)/.exec(p);
    return `triton delay ${m ? formatDuration(Number(m[1]) * 1e-6) : '?'}`;
  }
  return p;
}

export function formatComparison(c: Comparison, controlLimit: number | string): string {
  const head = ['policy', 'cost (sim ± 95 % CI)', 'vs optimal (paired CI)', 'cost (exact)', 'mean R ms (± CI)', 'p99 ms', 'power W', 'mean batch'];
  const opt = c.rows[0].simulation.averageCost;
  const pct = (x: number): string => `${(x * 100).toFixed(2)} %`;
  const rows = c.rows.map((r) => {
    const s = r.simulation;
    const ci = s.confidence;
    return [
      describeRow(r, controlLimit),
      `${s.averageCost.toPrecision(6)}${ci.averageCost === null ? '' : ` ± ${ci.averageCost.toPrecision(2)}`}`,
      r.label === 'optimal'
        ? '—'
        : `${r.costAboveOptimal.difference >= 0 ? '+' : '−'}${pct(Math.abs(r.costAboveOptimal.difference) / opt)}` +
          (r.costAboveOptimal.halfWidth === null ? '' : ` ± ${pct(r.costAboveOptimal.halfWidth / opt)}`),
      r.exactCost === null ? '—' : r.exactCost.toPrecision(6),
      `${ms(s.meanResponseTime)}${ci.meanResponseTime === null ? '' : ` ± ${ms(ci.meanResponseTime)}`}`,
      ms(s.percentiles.p99),
      s.meanPower.toFixed(2),
      s.meanBatchSize.toFixed(2),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => cells.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  const n = c.rows[0].simulation.requests.toLocaleString('en-US');
  return [
    line(head),
    line(head.map((_, i) => '-'.repeat(widths[i]))),
    ...rows.map(line),
    '',
    `Each row: ${n} simulated requests, one seed for all rows (the same arrivals), so "vs optimal" is a paired ` +
      `difference with its own, tighter interval. The Triton delay was tuned over ${c.delayTrials.length} values ` +
      `(${c.delayTrials.map((t) => formatDuration(t.maxQueueDelay)).join(', ')}) on another seed.`,
  ].join('\n');
}

export async function runCompare(file: string, o: CompareFlags): Promise<void> {
  const scenario = validateScenario(readJsonFile(file));
  const B = scenario.params.maxBatchSize;
  const bar = progressBar(!o.json && process.stderr.isTTY === true, 'comparing');
  bar.update(0, 1, 'solving');
  const delayGrid = o.delays?.split(',').map((d) => parseDuration(d, '--delays', 's'));
  // The same runs for Poisson and bursty arrivals (MmppCompareOptions has the same fields).
  const options: CompareOptions = {
    requests: o.requests,
    tuningRequests: o.tuningRequests,
    seed: o.seed,
    delayGrid,
    onProgress: (p) => bar.update(p.done, p.total, p.step),
  };
  if (scenario.params.arrivalProcess) {
    // Bursty traffic (docs/model.md §7): the per-phase optimum against the Poisson model's policy at λ̄.
    const solved = await solveMmppAndPoisson(scenario);
    const comparison = await compareMmppPolicies(scenario.params, solved.optimal, solved.poissonModel, options);
    bar.stop();
    const limits = `${solved.result.policy.phases?.map((ph) => ph.controlLimit).join('/') ?? ''} by phase`;
    process.stdout.write(o.json ? `${JSON.stringify(comparison, null, 2)}\n` : `${formatComparison(comparison, limits)}\n`);
    return;
  }
  const optimal = await optimalPolicy(scenario);
  const comparison = await comparePolicies(scenario.params, optimal, options);
  bar.stop();
  const limit = summarizePolicy(optimal, B).controlLimit;
  process.stdout.write(o.json ? `${JSON.stringify(comparison, null, 2)}\n` : `${formatComparison(comparison, limit)}\n`);
}
