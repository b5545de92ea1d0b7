import { createRequire } from 'node:module';
import type * as CliProgress from 'cli-progress';

/** A progress line that can be switched off: every long command takes one. */
export interface ProgressBar {
  update(done: number, total: number, step?: string): void;
  stop(): void;
}

const require = createRequire(import.meta.url);

/**
 * A progress bar on stderr for runs long enough to want one (TTY only: nothing on a pipe).
 * cli-progress is loaded on first use, so commands that show no bar never pay for it.
 */
export function progressBar(enabled: boolean, label: string): ProgressBar {
  if (!enabled) return { update: () => undefined, stop: () => undefined };
  const cliProgress = require('cli-progress') as typeof CliProgress;
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {step}`, hideCursor: true, clearOnComplete: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total, step = '') {
      if (!started) {
        bar.start(total, done, { step });
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done, { step });
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** A one-line status for work whose total is unknown (a planner's solves): what it is doing, and for how long. */
export interface StatusLine {
  set(step: string): void;
  stop(): void;
}

/**
 * Redraws `label: step (12 s)` on stderr at least once a second while enabled (TTY only), so a
 * long solve inside a step still shows the clock moving; cleared on stop.
 */
/** Status lines being drawn, so that a command handed over to a supervised child (bin.ts) can clear them. */
const active = new Set<StatusLine>();

export function stopAllStatusLines(): void {
  for (const l of [...active]) l.stop();
}

export function statusLine(enabled: boolean, label: string): StatusLine {
  if (!enabled) return { set: () => undefined, stop: () => undefined };
  const started = Date.now();
  let step = 'starting';
  let width = 0;
  const draw = (): void => {
    const text = `${label}: ${step} (${Math.round((Date.now() - started) / 1000)} s)`.slice(0, Math.max(20, (process.stderr.columns ?? 100) - 1));
    process.stderr.write(`\r${text}${' '.repeat(Math.max(0, width - text.length))}`);
    width = text.length;
  };
  const timer = setInterval(draw, 500);
  timer.unref();
  draw();
  const line: StatusLine = {
    set(s) {
      step = s;
      draw();
    },
    stop() {
      if (!active.delete(line)) return;
      clearInterval(timer);
      process.stderr.write(`\r${' '.repeat(width)}\r`);
    },
  };
  active.add(line);
  return line;
}
