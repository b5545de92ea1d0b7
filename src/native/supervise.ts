import { spawn, type ChildProcess } from 'node:child_process';
import { constants, hostname } from 'node:os';
import { isatty } from 'node:tty';
import { NativeCapture, type NativeMode, type RecordLogger } from './capture.js';
import { SUPERVISOR_ENV, writeAllSync } from './stdio.js';

/** How a supervised run treats native output (src/cli/nativePlan.ts decides it from the command line). */
export interface SupervisePlan {
  mode: NativeMode;
  /** records mode: the name and level of the command's own pino log (JSON lines on stdout). */
  logName?: string;
  logLevel?: string;
  /** now: before the command runs; on-gpu: only once it is about to load the GPU (src/solve/nativeGate.ts). */
  when?: 'now' | 'on-gpu';
}

/** Signals passed on to the child (SIGINT only when no terminal sent it to both: see forwardSignals). */
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** After the child exits, how long its capture pipes may stay open (a grandchild holding them). */
const DRAIN_MS = 2000;
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Runs this very command line (`node <execArgv> <args>`) as a supervised child: its fds 1 and 2
 * are pipes read here, its JavaScript output goes straight to our stdout and stderr (fds 3 and
 * 4 in the child, src/native/stdio.ts), and a pipe on its fd 5 ends when we do (the child then
 * kills itself: see stdio.ts). Resolves with the exit code to leave with, or undefined when no
 * child could be started (the caller then runs the command itself, unsupervised). A child
 * killed by a signal is mirrored: this process kills itself with the same signal.
 */
export async function superviseSelf(plan: SupervisePlan, execArgv: readonly string[], args: readonly string[]): Promise<number | undefined> {
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...execArgv, ...args], {
      stdio: ['inherit', 'pipe', 'pipe', 1, 2, 'pipe'],
      env: { ...process.env, [SUPERVISOR_ENV]: String(process.pid) },
    });
  } catch {
    return undefined;
  }
  // From the first moment: a SIGTERM while pino loads must reach the child, not end us alone.
  const unforward = forwardSignals(child);
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  if (!started || child.pid === undefined) {
    unforward();
    return undefined;
  }
  child.on('error', () => undefined); // a failed kill() of a child that already exited
  const log = plan.mode === 'records' ? await recordLogger(plan, child.pid) : undefined;
  const capture = new NativeCapture(plan.mode, log);
  const take = (stream: 'stdout' | 'stderr') => (d: Buffer): void => {
    try {
      capture.chunk(d, stream);
    } catch {
      // Our own stdout or stderr is gone (EPIPE): the lines are lost, the child must not be.
    }
  };
  child.stdout!.on('data', take('stdout'));
  child.stderr!.on('data', take('stderr'));
  const { code, signal } = await exited(child);
  unforward();
  try {
    capture.end();
    if (plan.mode === 'hidden') reportHidden(capture, code, signal);
  } catch {
    // as above
  }
  if (signal) {
    process.kill(process.pid, signal);
    return 128 + (constants.signals[signal] ?? 0);
  }
  return code ?? 1;
}

/**
 * A terminal's Ctrl-C reaches the whole foreground process group, the child included, so
 * SIGINT is passed on only when no terminal is attached (else `serve` would take it for the
 * second, "abort now" signal). SIGTERM and SIGHUP are always passed on.
 */
function forwardSignals(child: ChildProcess): () => void {
  const fromTerminal = isatty(0) || isatty(1) || isatty(2);
  const handler = (sig: NodeJS.Signals): void => {
    if (sig === 'SIGINT' && fromTerminal) return;
    child.kill(sig);
  };
  for (const s of FORWARDED) process.on(s, handler);
  return () => {
    for (const s of FORWARDED) process.off(s, handler);
  };
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    child.once('exit', (code, signal) => {
      timer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve({ code, signal });
      }, DRAIN_MS);
    });
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** The command's own log format (name, level, the child's pid), one synchronous write per record. */
async function recordLogger(plan: SupervisePlan, pid: number): Promise<RecordLogger> {
  const { pino } = await import('pino');
  const level = plan.logLevel && LEVELS.includes(plan.logLevel) ? plan.logLevel : 'info';
  const log = pino({ name: plan.logName, level, base: { pid, hostname: hostname() } }, pino.destination({ fd: 1, sync: true }));
  return { warn: (obj, msg) => log.warn(obj, msg) };
}

/**
 * Hidden mode says nothing after a successful run. After an input error (exit code 2) it says
 * how many native lines were hidden; after any other failure it prints the kept lines, which
 * then also hold what Node itself printed outside process.stderr (an uncaught exception, a
 * fatal V8 error).
 */
function reportHidden(c: NativeCapture, code: number | null, signal: NodeJS.Signals | null): void {
  if (c.lines === 0 || (code === 0 && !signal)) return;
  if (!signal && code === 2) {
    writeAllSync(2, `batchwise: ${c.lines} line(s) of native GPU driver output hidden; --verbose (or BATCHWISE_NATIVE_OUTPUT=show) shows them\n`);
    return;
  }
  const kept = c.keptLines();
  const which = kept.length < c.lines ? `the last ${kept.length} of ${c.lines} lines` : `${c.lines} line(s)`;
  writeAllSync(2, `batchwise: the run failed (${signal ?? `exit code ${code}`}); ${which} it wrote outside batchwise's own output (native libraries, Node itself):\n${kept.join('\n')}\n`);
}
