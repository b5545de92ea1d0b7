import { ScenarioError } from '../model/errors.js';
import { SIM_LIMITS } from './limits.js';

export interface TraceOptions {
  /** CSV column holding the timestamps (default `timestamp`, case-insensitive). */
  readonly column?: string;
  /** Name used in error messages (a file path). */
  readonly source?: string;
}

/**
 * Reads an arrival trace: one timestamp in seconds per line, or CSV with a header row and a
 * timestamp column. Blank lines and lines starting with `#` are skipped. Timestamps must be
 * finite and non-decreasing (a trace of arrivals in the order they came); each error names
 * the line.
 */
export function parseTrace(text: string, opts: TraceOptions = {}): Float64Array {
  const source = opts.source ?? 'trace';
  const lines = text.split(/\r?\n/);
  let i = 0;
  const skip = (l: string): boolean => l.trim() === '' || l.trimStart().startsWith('#');
  while (i < lines.length && skip(lines[i])) i++;
  if (i === lines.length) throw new ScenarioError(source, 'holds no timestamps');

  let column = 0;
  let separator: string | null = null;
  const first = lines[i];
  if (first.includes(',') || first.includes(';') || first.includes('\t') || Number.isNaN(Number(first.trim()))) {
    separator = first.includes(',') ? ',' : first.includes(';') ? ';' : first.includes('\t') ? '\t' : ',';
    const header = first.split(separator).map((h) => h.trim().replace(/^"(.*)"$/, '$1'));
    const wanted = (opts.column ?? 'timestamp').toLowerCase();
    column = header.findIndex((h) => h.toLowerCase() === wanted);
    if (column < 0) {
      throw new ScenarioError(source, `line ${i + 1}: no column ${JSON.stringify(opts.column ?? 'timestamp')} in the CSV header (${header.join(', ')})`);
    }
    i++;
  } else if (opts.column !== undefined) {
    throw new ScenarioError(source, `has no CSV header, so column ${JSON.stringify(opts.column)} cannot be found`);
  }

  const out = new Float64Array(Math.min(lines.length - i, SIM_LIMITS.maxTraceArrivals + 1));
  let n = 0;
  let prev = -Infinity;
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (skip(line)) continue;
    const cell = separator === null ? line : line.split(separator)[column];
    const t = cell === undefined ? NaN : Number(cell.trim().replace(/^"(.*)"$/, '$1'));
    if (cell === undefined || cell.trim() === '' || !Number.isFinite(t)) {
      throw new ScenarioError(source, `line ${i + 1}: ${JSON.stringify(cell ?? line)} is not a timestamp in seconds`);
    }
    if (t < prev) throw new ScenarioError(source, `line ${i + 1}: timestamp ${t} is earlier than the one before (${prev}); sort the trace`);
    if (n === SIM_LIMITS.maxTraceArrivals) {
      throw new ScenarioError(source, `holds more than ${SIM_LIMITS.maxTraceArrivals} timestamps`);
    }
    out[n++] = t;
    prev = t;
  }
  if (n < 2) throw new ScenarioError(source, `holds ${n} timestamp${n === 1 ? '' : 's'}; at least 2 are needed`);
  return out.slice(0, n);
}

/** Writes timestamps one per line in the shortest form that reads back to the same double. */
export function formatTrace(times: ArrayLike<number>): string {
  let s = '';
  for (let i = 0; i < times.length; i++) s += `${times[i]}\n`;
  return s;
}
