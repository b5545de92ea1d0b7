/**
 * The cold path: `batchwise solve examples/scenario.json` in fresh processes, as the solve
 * reports it (solver.seconds: the solve alone, module loading excluded), median of five. A
 * fresh process has nothing compiled yet: what it pays is parsing and compiling the solve's
 * functions and running them before any JIT tier, plus the one-off set-up. The target is
 * ≤ 20 ms (issue 18). With BATCHWISE_BENCH_BASELINE (a checkout of an older commit with dist/
 * built) the same command runs on it too, alternating run by run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, median } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

const here = dirname(fileURLToPath(import.meta.url));
const ownRoot = here.endsWith(join('dist', 'bench')) ? join(here, '..', '..') : join(here, '..');

/** Fresh processes per build: the target is stated as the median of five. */
const RUNS = 5;
const TARGET_MS = 20;

/** One cold solve: solver.seconds (ms) and the process's wall time (ms). */
function coldSolve(root: string): { solverMs: number; wallMs: number } {
  const t = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'bin/batchwise.js'), 'solve', join(root, 'examples/scenario.json'), '--json'], {
    cwd: root,
    env: { ...process.env, BATCHWISE_GPU: 'off' },
    encoding: 'utf8',
  });
  const wallMs = performance.now() - t;
  if (r.status !== 0) throw new Error(`solve in ${root} exited ${r.status}: ${r.stderr}`);
  const result = JSON.parse(r.stdout) as { solver: { seconds: number } };
  return { solverMs: result.solver.seconds * 1e3, wallMs };
}

function load(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
}

export default async function coldSolveBench(ctx: BenchContext): Promise<BenchSection> {
  const baseline = process.env.BATCHWISE_BENCH_BASELINE;
  const builds = [{ name: 'this', root: ownRoot }];
  if (baseline && existsSync(join(baseline, 'dist/src/index.js'))) builds.push({ name: 'baseline', root: baseline });
  const loadBefore = load();
  const runs = builds.map(() => [] as Array<{ solverMs: number; wallMs: number }>);
  for (let i = 0; i < RUNS; i++) builds.forEach((b, k) => runs[k].push(coldSolve(b.root)));
  const rows = builds.map((b, k) => {
    const solver = runs[k].map((r) => r.solverMs);
    return {
      build: b.name,
      'solver.seconds, median (ms)': fmt(median(solver)),
      'min (ms)': fmt(Math.min(...solver)),
      'max (ms)': fmt(Math.max(...solver)),
      'process wall, median (ms)': fmt(median(runs[k].map((r) => r.wallMs))),
      'each run (ms)': solver.map((v) => v.toFixed(1)).join(', '),
    };
  });
  ctx.log(rows.map((r) => `${r.build}: ${r['solver.seconds, median (ms)']} ms`).join('; '));
  return {
    name: 'Cold solve',
    machineNote: `\`batchwise solve examples/scenario.json --json\`, ${RUNS} fresh processes per build (BATCHWISE_GPU=off), the builds alternating run by run; load average ${loadBefore} before and ${load()} after (1 / 5 / 15 min).`,
    rows,
    notes: [
      `Target: median solver.seconds ≤ ${TARGET_MS} ms. solver.seconds is the solve alone (validation to result), as the result reports it; loading the modules is not in it. The medians move with the load (the machine note).`,
      'The inner loops (chain reduction, substitutions, Bellman step, chain building) are WebAssembly compiled ahead of time (wasm/*.ts), so a fresh process runs them at full speed from the first call; what is left is compiling and interpreting the JavaScript around them.',
    ],
  };
}
