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
