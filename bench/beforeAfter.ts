/**
 * Before and after in one run, shared by bench/baseline.bench.ts and bench/hardRegimes.bench.ts:
 * where the baseline build is (BATCHWISE_BENCH_BASELINE, a checkout of an older commit with its
 * `dist/` built), and the loop that alternates the two builds run by run, so that a change of
 * load on the machine falls on both alike.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The baseline's library entry, or why there is none (the section then says so and times nothing). */
export function baselineEntry(): { dir: string; entry: string } | { missing: string } {
  const dir = process.env.BATCHWISE_BENCH_BASELINE;
  const entry = dir ? join(dir, 'dist', 'src', 'index.js') : undefined;
  if (!dir || !entry || !existsSync(entry)) return { missing: `Not run: set BATCHWISE_BENCH_BASELINE to a checkout with dist/ built (${entry ?? 'unset'}).` };
  return { dir: `${dir}${baselineCommit(dir)}`, entry };
}

/** ", commit abc1234 of 2026-11-30" when dir is a git checkout (the path alone does not say which build it was), else "". */
export function baselineCommit(dir: string): string {
  const r = spawnSync('git', ['-C', dir, 'log', '-1', '--format=%h of %cs'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? `, commit ${r.stdout.trim()}` : '';
}

/** One timed run: its milliseconds and its answer, or why there is none. */
export interface Run<A> {
  readonly ms: number;
  readonly answer?: A;
  /** The solver refused or failed: its message. */
  readonly error?: string;
  /** Stopped at the time limit: `ms` is that limit, a lower bound. */
  readonly timedOut?: boolean;
}
export type TimedSolve<A> = (s: unknown) => Promise<Run<A>>;

/** Times an in-process solve (its errors propagate: the single-solve rows must not fail). */
export function inProcess<A>(solve: (s: unknown) => Promise<A>): TimedSolve<A> {
  return async (s) => {
    const t = performance.now();
    const answer = await solve(s);
    return { ms: performance.now() - t, answer };
  };
}

/**
 * Times a solve by `entry`'s build in a fresh process (bench/solveChild.ts), killed at `limitMs`;
 * CPU only (BATCHWISE_GPU=off), as both builds' CPU solvers are what is compared.
 */
export function inChild<A>(entry: string, limitMs: number): TimedSolve<A> {
  const here = fileURLToPath(import.meta.url);
  const script = join(dirname(here), `solveChild${extname(here)}`);
  return (s) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...process.execArgv, script, entry], { env: { ...process.env, BATCHWISE_GPU: 'off' }, stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      let timedOut = false;
      const stop = (): void => {
        timedOut = true;
        child.kill('SIGKILL');
      };
      // The limit counts from the child's 'start' line (the solve's start), not from the spawn.
      let timer = setTimeout(stop, limitMs + 60_000);
      child.stdout.on('data', (d: Buffer) => {
        if (!out.includes('\n') && (out + d.toString()).includes('\n')) {
          clearTimeout(timer);
          timer = setTimeout(stop, limitMs);
        }
        out += d.toString();
      });
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        if (timedOut) return resolve({ ms: limitMs, timedOut: true });
        try {
          resolve(JSON.parse(out.slice(out.indexOf('\n') + 1)) as Run<A>);
        } catch {
          reject(new Error(`solveChild exited ${String(code)} without an answer: ${out.slice(0, 200)}`));
        }
      });
      child.stdin.end(JSON.stringify(s));
    });
}

export interface Schedule {
  readonly reps: number;
  readonly warmup: number;
  /**
   * A build whose first measured run takes longer than this (or fails, or times out) is not run
   * again: one run of a minute says what five would, and the old solver may take many minutes.
   */
  readonly onceAboveMs?: number;
}

function enough(runs: readonly Run<unknown>[], sched: Schedule): boolean {
  const first = runs[0];
  if (!first || sched.onceAboveMs === undefined) return false;
  return first.ms > sched.onceAboveMs || first.error !== undefined || first.timedOut === true;
}

/** Alternates the two builds run by run; returns each one's runs in order. */
export async function alternate<A>(s: unknown, sched: Schedule, before: TimedSolve<A>, after: TimedSolve<A>): Promise<{ before: Run<A>[]; after: Run<A>[] }> {
  for (let i = 0; i < sched.warmup; i++) {
    await before(s);
    await after(s);
  }
  const out = { before: [] as Run<A>[], after: [] as Run<A>[] };
  for (let i = 0; i < sched.reps; i++) {
    if (!enough(out.before, sched)) out.before.push(await before(s));
    if (!enough(out.after, sched)) out.after.push(await after(s));
  }
  return out;
}
