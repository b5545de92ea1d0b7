import { writeAllSync } from './stdio.js';

/** What the supervisor does with the lines native code printed (docs/gpu.md, "Native output"). */
export type NativeMode = 'raw' | 'hidden' | 'records';

export type NativeStream = 'stdout' | 'stderr';

/** One record's worth of a native line: well under a pipe's atomic write (4096 bytes) as JSON. */
export const MAX_LINE_CHARS = 2000;

/** Lines kept for the report of a failed run in hidden mode. */
export const KEPT_LINES = 200;

/** The minimal logger the records mode needs (a pino logger fits). */
export interface RecordLogger {
  warn(obj: { native: string; stream: NativeStream }, msg: string): void;
}

/** Splits a byte stream into lines (LF or CRLF); a last line without LF comes out at end(). */
export class LineSplitter {
  private rest = '';
  push(chunk: string): string[] {
    const parts = (this.rest + chunk).split('\n');
    this.rest = parts.pop() ?? '';
    return parts.map(stripCr);
  }
  end(): string[] {
    const last = this.rest;
    this.rest = '';
    return last ? [stripCr(last)] : [];
  }
}

const stripCr = (l: string): string => (l.endsWith('\r') ? l.slice(0, -1) : l);

export function clip(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)} […${line.length - MAX_LINE_CHARS} more characters]`;
}

/**
 * Takes the child's fd 1 and fd 2 output. raw: passed on to stderr as it comes (never to stdout,
 * which holds only the program's result); hidden: counted, the last KEPT_LINES kept for a
 * failure report; records: one warn record per non-blank line, field `native`.
 */
export class NativeCapture {
  private readonly splitters = { stdout: new LineSplitter(), stderr: new LineSplitter() };
  private readonly kept: string[] = [];
  private rawOpenLine = false;
  /** Non-blank native lines seen, whatever the mode. */
  lines = 0;

  constructor(
    readonly mode: NativeMode,
    private readonly log?: RecordLogger,
    private readonly stderrFd = 2,
  ) {}

  chunk(data: Buffer, stream: NativeStream): void {
    if (this.mode === 'raw') {
      writeAllSync(this.stderrFd, data);
      this.rawOpenLine = data.length > 0 && data[data.length - 1] !== 0x0a;
    }
    for (const l of this.splitters[stream].push(data.toString('utf8'))) this.line(l, stream);
  }

  /** The streams have ended: flush a last line that had no newline. */
  end(): void {
    if (this.rawOpenLine) writeAllSync(this.stderrFd, '\n');
    this.rawOpenLine = false;
    for (const s of ['stdout', 'stderr'] as const) for (const l of this.splitters[s].end()) this.line(l, s);
  }

  /** The last lines seen (hidden mode), for the report of a failed run. */
  keptLines(): readonly string[] {
    return this.kept;
  }

  private line(l: string, stream: NativeStream): void {
    if (!l.trim()) return;
    this.lines++;
    if (this.mode === 'records') this.log?.warn({ native: clip(l), stream }, 'native output');
    else if (this.mode === 'hidden') {
      this.kept.push(clip(l));
      if (this.kept.length > KEPT_LINES) this.kept.shift();
    }
  }
}
