import type { ScenarioResult } from '../service/messages.js';
import type { ClassesSolveResult } from '../solve/classes/result.js';
import type { SolveResult } from '../solve/result.js';

/** One row of a sweep: the scenario's tags and its headline figures, or its error. */
const COLUMNS = [
  'index',
  'arrivalRate',
  'maxBatchSize',
  'latencyWeight',
  'powerWeight',
  'averageCost',
  'controlLimit',
  'isControlLimit',
  'meanResponseTimeMs',
  'meanPowerW',
  'p50_ms',
  'p90_ms',
  'p95_ms',
  'p99_ms',
  'p999_ms',
  'maxQueue',
  'iterations',
  'warmStarted',
  'cached',
  'error',
] as const;

type Row = Record<(typeof COLUMNS)[number], string>;

/** Values of several classes in one cell, in class order (a CSV cell stays one cell: no commas). */
const PER_CLASS = '/';

type Num = (v: number, digits: number) => string;
/** The columns a result fills (the tags and the error are every row's). */
type Figures = Omit<Row, 'index' | 'arrivalRate' | 'maxBatchSize' | 'latencyWeight' | 'powerWeight' | 'error'>;

function row(r: ScenarioResult, precise: boolean): Row {
  const p = r.parameters;
  const num: Num = (v, digits) => (precise ? String(v) : v.toPrecision(digits));
  const figures = r.result ? singleFigures(r, r.result, num) : r.classesResult ? classesFigures(r, r.classesResult, num) : undefined;
  return {
    index: String(r.index),
    arrivalRate: String(p.arrivalRate),
    maxBatchSize: String(p.maxBatchSize),
    latencyWeight: String(p.latencyWeight),
    powerWeight: String(p.powerWeight),
    ...(figures ?? NO_FIGURES),
    error: r.error ? `${r.error.code}: ${r.error.message}` : '',
  };
}

const NO_FIGURES: Figures = {
  averageCost: '',
  controlLimit: '',
  isControlLimit: '',
  meanResponseTimeMs: '',
  meanPowerW: '',
  p50_ms: '',
  p90_ms: '',
  p95_ms: '',
  p99_ms: '',
  p999_ms: '',
  maxQueue: '',
  iterations: '',
  warmStarted: '',
  cached: '',
};

function singleFigures(r: ScenarioResult, x: SolveResult, num: Num): Figures {
  return {
    averageCost: num(x.averageCost, 10),
    controlLimit: String(x.policy.controlLimit),
    isControlLimit: String(x.policy.isControlLimit),
    meanResponseTimeMs: num(x.meanResponseTime * 1e3, 7),
    meanPowerW: num(x.meanPower, 7),
    // Empty when skipped or unavailable (the reason is in --format jsonl).
    p50_ms: x.latency ? num(x.latency.p50 * 1e3, 4) : '',
    p90_ms: x.latency ? num(x.latency.p90 * 1e3, 4) : '',
    p95_ms: x.latency ? num(x.latency.p95 * 1e3, 4) : '',
    p99_ms: x.latency ? num(x.latency.p99 * 1e3, 4) : '',
    p999_ms: x.latency ? num(x.latency.p999 * 1e3, 4) : '',
    maxQueue: String(x.solver.maxQueue),
    iterations: String(x.solver.totalIterations),
    warmStarted: String(r.warmStarted),
    cached: String(r.cached),
  };
}

/**
 * A scenario with classes (docs/model.md §10): its cost and power; control limits, mean response
 * times and S per class ('-' for a class never served alone within S); no percentiles (not
 * computed for classes yet). Its tags are the scenario's own: only powerWeight is set.
 */
function classesFigures(r: ScenarioResult, x: ClassesSolveResult, num: Num): Figures {
  return {
    ...NO_FIGURES,
    averageCost: num(x.averageCost, 10),
    controlLimit: x.policy.controlLimits.map((v) => (v === null ? '-' : String(v))).join(PER_CLASS),
    meanResponseTimeMs: x.classes.map((c) => num(c.meanResponseTime * 1e3, 7)).join(PER_CLASS),
    meanPowerW: num(x.meanPower, 7),
    maxQueue: x.policy.maxQueue.join(PER_CLASS),
    iterations: String(x.solver.totalIterations),
    warmStarted: String(r.warmStarted),
    cached: String(r.cached),
  };
}

const byIndex = (a: ScenarioResult, b: ScenarioResult): number => a.index - b.index;

function csvCell(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function formatCsv(results: readonly ScenarioResult[]): string {
  const lines = [COLUMNS.join(',')];
  for (const r of [...results].sort(byIndex)) {
    const x = row(r, true);
    lines.push(COLUMNS.map((c) => csvCell(x[c])).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Aligned columns; errors go last on their row, untruncated. */
export function formatTable(results: readonly ScenarioResult[]): string {
  const rows = [...results].sort(byIndex).map((r) => row(r, false));
  const head: Row = Object.fromEntries(COLUMNS.map((c) => [c, c])) as Row;
  // Of the percentiles the table keeps p99 only (CSV has all five), to stay readable on a terminal.
  const hidden = new Set<string>(['error', 'isControlLimit', 'p50_ms', 'p90_ms', 'p95_ms', 'p999_ms']);
  const shown = COLUMNS.filter((c) => !hidden.has(c));
  const width = Object.fromEntries(shown.map((c) => [c, Math.max(c.length, ...rows.map((r) => r[c].length))])) as Record<string, number>;
  const line = (r: Row): string => [...shown.map((c) => r[c].padStart(width[c])), r.error].join('  ').trimEnd();
  return `${[line({ ...head, error: '' }), ...rows.map(line)].join('\n')}\n`;
}

export function formatJsonLine(r: ScenarioResult): string {
  return `${JSON.stringify(r)}\n`;
}

/** Totals for the summary line on stderr. */
export function summarize(results: readonly ScenarioResult[]): { solved: number; errors: number; iterations: number; warmStarted: number; cached: number } {
  let solved = 0;
  let errors = 0;
  let iterations = 0;
  let warmStarted = 0;
  let cached = 0;
  for (const r of results) {
    const solver = r.result?.solver ?? r.classesResult?.solver;
    if (!solver) {
      errors++;
      continue;
    }
    solved++;
    if (r.cached) cached++;
    else iterations += solver.totalIterations;
    if (r.warmStarted) warmStarted++;
  }
  return { solved, errors, iterations, warmStarted, cached };
}
