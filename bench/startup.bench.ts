/**
 * Start-up of fresh processes: `batchwise --help`, a local `solve` of the example, and
 * `import('batchwise')`, each as the process's CPU time (user + system, from a preload that
 * reports process.cpuUsage() at exit) and wall time, median of repeated runs. With
 * BATCHWISE_BENCH_BASELINE (a checkout of an older commit with dist/ built, as for the baseline
 * section) the same commands run on it too, alternating run by run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmt, median } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

const here = dirname(fileURLToPath(import.meta.url));
const ownRoot = here.endsWith(join('dist', 'bench')) ? join(here, '..', '..') : join(here, '..');

interface Command {
  readonly name: string;
  readonly args: (root: string) => string[];
}

const COMMANDS: Command[] = [
  { name: 'node -e 0 (Node alone, for reference)', args: () => ['-e', '0'] },
  { name: 'batchwise --help', args: (root) => [join(root, 'bin/batchwise.js'), '--help'] },
  { name: 'batchwise solve examples/scenario.json', args: (root) => [join(root, 'bin/batchwise.js'), 'solve', join(root, 'examples/scenario.json'), '--json'] },
  { name: "import('batchwise')", args: (root) => ['-e', `await import(${JSON.stringify(pathToFileURL(join(root, 'dist/src/index.js')).href)})`, '--input-type=module'] },
];

interface Run {
  readonly cpuMs: number;
  readonly wallMs: number;
  /** solver.seconds of a solve's JSON output, when the command prints one. */
  readonly solverMs?: number;
}

function runOnce(root: string, c: Command, dir: string): Run {
  const out = join(dir, 'cpu.json');
  const preload = join(dir, 'cpu.mjs');
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, ...c.args(root)], {
    cwd: root,
    env: { ...process.env, BATCHWISE_CPU_OUT: out, BATCHWISE_GPU: 'off' },
    encoding: 'utf8',
  });
  const wallMs = performance.now() - t;
  if (r.status !== 0) throw new Error(`${c.name} in ${root} exited ${r.status}: ${r.stderr}`);
  const cpu = JSON.parse(readFileSync(out, 'utf8')) as { user: number; system: number };
  const solverMs = /"seconds":\s*([0-9.eE+-]+)/.exec(r.stdout);
  return { cpuMs: (cpu.user + cpu.system) / 1e3, wallMs, ...(solverMs ? { solverMs: Number(solverMs[1]) * 1e3 } : {}) };
}

function summary(runs: Run[]): Record<string, string> {
  const solver = runs.flatMap((r) => (r.solverMs === undefined ? [] : [r.solverMs]));
  return {
    'process CPU (ms)': fmt(median(runs.map((r) => r.cpuMs))),
    'wall (ms)': fmt(median(runs.map((r) => r.wallMs))),
    ...(solver.length > 0 ? { 'solver.seconds (ms)': fmt(median(solver)) } : {}),
  };
}

export default async function startup(ctx: BenchContext): Promise<BenchSection> {
  const reps = ctx.quick ? 3 : 9;
  const baseline = process.env.BATCHWISE_BENCH_BASELINE;
  const roots = baseline && existsSync(join(baseline, 'dist/src/index.js')) ? [ownRoot, baseline] : [ownRoot];
  const dir = mkdtempSync(join(tmpdir(), 'batchwise-startup-'));
  writeFileSync(
    join(dir, 'cpu.mjs'),
    "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(process.env.BATCHWISE_CPU_OUT, JSON.stringify(process.cpuUsage())));\n",
  );
  const rows: Array<Record<string, string>> = [];
  try {
    for (const c of COMMANDS) {
      const runs: Run[][] = roots.map(() => []);
      for (let i = 0; i < reps; i++) roots.forEach((root, k) => runs[k].push(runOnce(root, c, dir)));
      roots.forEach((root, k) => rows.push({ command: c.name, build: k === 0 ? 'this' : 'baseline', ...summary(runs[k]) }));
      ctx.log(`${c.name}: ${rows[rows.length - roots.length]['process CPU (ms)']} ms CPU`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    name: 'Start-up of a fresh process',
    machineNote: `Median of ${reps} fresh processes each (BATCHWISE_GPU=off); the two builds alternate run by run; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} (1 / 5 / 15 min) at the end.`,
    rows,
    notes: [
      'Process CPU is user + system time of the whole process, Node\'s own start-up included (the first row); the target is ≤ 300 ms for each batchwise command. The machine note above gives the load: these medians move with it.',
      'solver.seconds is the solve alone, as the result reports it: the rest of a local solve is loading and JIT warm-up.',
    ],
  };
}
