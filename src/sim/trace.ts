import { ScenarioError } from '../model/errors.js';
import { SIM_LIMITS } from './limits.js';
import { checkSecondsTimestamps } from '../model/timestamps.js';

export interface TraceOptions {
  /** CSV column holding the timestamps (default `timestamp`, case-insensitive). */
  readonly column?: string;
  /** Name used in error messages (a file path). */
  readonly source?: string;
}

/**
 * Reads an arrival trace: one timestamp in seconds per line, or CSV with a header row and a
 * timestamp column (separated by `,`, `;` or tabs). Blank lines and lines starting with `#`
 * are skipped. Timestamps must be finite and non-decreasing (arrivals in the order they
 * came); each error names the line. Lines are scanned with indexOf rather than split, so a
 * trace of millions of lines parses at memory speed.
 */
export function parseTrace(text: string, opts: TraceOptions = {}): Float64Array {
  const source = opts.source ?? 'trace';
  let pos = 0;
  let lineNo = 0;
  /** Start and end of the current line (without the line break). */
  let start = 0;
  let end = 0;
  const nextLine = (): boolean => {
    if (pos > text.length) return false;
    start = pos;
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    pos = nl + 1;
    lineNo++;
    return true;
  };
  const isSkipped = (line: string): boolean => {
    const t = line.trim();
    return t === '' || t.startsWith('#');
  };

  let first: string | null = null;
  while (nextLine()) {
    const line = text.slice(start, end);
    if (!isSkipped(line)) {
      first = line;
      break;
    }
  }
  if (first === null) throw new ScenarioError(source, 'holds no timestamps');

  let column = -1;
  let sep = '';
  const headerLike = /[,;\t]/.test(first) || Number.isNaN(Number(first.trim()));
  if (headerLike) {
    sep = first.includes(',') ? ',' : first.includes(';') ? ';' : first.includes('\t') ? '\t' : ',';
    const header = first.split(sep).map(unquote);
    const wanted = (opts.column ?? 'timestamp').toLowerCase();
    column = header.findIndex((h) => h.toLowerCase() === wanted);
    if (column < 0) {
      throw new ScenarioError(source, `line ${lineNo}: no column ${JSON.stringify(opts.column ?? 'timestamp')} in the CSV header (${header.join(', ')})`);
    }
  } else if (opts.column !== undefined) {
    throw new ScenarioError(source, `has no CSV header, so column ${JSON.stringify(opts.column)} cannot be found`);
  }

  let out = new Float64Array(1024);
  let n = 0;
  let prev = -Infinity;
  const take = (cell: string, line: string): void => {
    const s = cell.trim();
    const t = s === '' ? NaN : Number(unquote(s));
    if (!Number.isFinite(t)) throw new ScenarioError(source, `line ${lineNo}: ${JSON.stringify(line)} holds no timestamp in seconds`);
    if (t < prev) throw new ScenarioError(source, `line ${lineNo}: timestamp ${t} is earlier than the one before (${prev}); sort the trace`);
    if (n === out.length) {
      if (n >= SIM_LIMITS.maxTraceArrivals) throw new ScenarioError(source, `holds more than ${SIM_LIMITS.maxTraceArrivals} timestamps`);
      const grown = new Float64Array(Math.min(n * 2, SIM_LIMITS.maxTraceArrivals));
      grown.set(out);
      out = grown;
    }
    out[n++] = t;
    prev = t;
  };

  if (!headerLike) take(first, first);
  while (nextLine()) {
    if (end === start) continue;
    const line = text.slice(start, end);
    if (column < 0) {
      if (isSkipped(line)) continue;
      take(line, line);
      continue;
    }
    if (isSkipped(line)) continue;
    // Cell number `column` of the line.
    let from = 0;
    for (let c = 0; c < column && from >= 0; c++) {
      const i = line.indexOf(sep, from);
      from = i < 0 ? -1 : i + 1;
    }
    if (from < 0) throw new ScenarioError(source, `line ${lineNo}: ${JSON.stringify(line)} has no column ${column + 1}`);
    const to = line.indexOf(sep, from);
    take(line.slice(from, to < 0 ? line.length : to), line);
  }
  if (n < 2) throw new ScenarioError(source, `holds ${n} timestamp${n === 1 ? '' : 's'}; at least 2 are needed`);
  checkSecondsTimestamps(out[0], source);
  return out.slice(0, n);
}

function unquote(s: string): string {
  const t = s.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

/** Writes timestamps one per line in the shortest form that reads back to the same double. */
export function formatTrace(times: ArrayLike<number>): string {
  const lines = new Array<string>(times.length);
  for (let i = 0; i < times.length; i++) lines[i] = String(times[i]);
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
