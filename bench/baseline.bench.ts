/**
 * Before and after in one run: this build against a baseline build of an older commit, on the
 * single-solve rows (docs/model.md §6 cases, B = 128 near capacity) and on MMPP cases. Set
 * BATCHWISE_BENCH_BASELINE to a checkout of the older commit with its `dist/` built
 * (`git worktree add ../base <commit> && cd ../base && npm ci && npm run build`); without it
 * the section says so and times nothing. Runs of the two builds alternate, so a change of load
 * on the machine falls on both alike.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { solveScenario, type Scenario } from '../src/index.js';
import { mmppBenchScenario } from './mmppModel.js';
import { scenario, singleSolveCases } from './solver.bench.js';
import { fmt, median } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

/** What both builds answer: the fields this section reads. */
interface Answer {
  readonly averageCost: number;
  readonly solver: { readonly maxQueue: number; readonly totalIterations: number };
}
type Solve = (s: unknown) => Promise<Answer>;

/** Three phases in a birth–death chain, B = 32, mean 80 % of capacity (the one-model issue's case). */
function threePhase(): Scenario {
  const rates = [2000, 4000, 6500];
  return {
    ...scenario(0, 1e-4),
    arrivalProcess: { mmpp: { rates, generator: [-5, 5, 0, 5, -9, 4, 0, 4, -4] } },
  };
}

interface Case {
  readonly name: string;
  readonly s: Scenario;
  readonly reps: number;
  readonly warmup: number;
}

function cases(quick: boolean): Case[] {
  const single = singleSolveCases().map((c) => ({ name: c.name, s: c.s, reps: quick ? 3 : c.rvi ? 31 : 11, warmup: quick ? 2 : 20 }));
  const mmpp: Case[] = [
    { name: 'MMPP bench model, S = 500 (4 phases, B = 128)', s: mmppBenchScenario(500), reps: 3, warmup: 0 },
    { name: 'MMPP 3 phases, B = 32, 80 % load, automatic S', s: threePhase(), reps: 3, warmup: 0 },
  ];
  return quick ? single : [...single, ...mmpp];
}

/** Alternates the two builds run by run; returns each one's times. */
async function alternate(c: Case, before: Solve, after: Solve): Promise<{ before: number[]; after: number[]; a?: Answer; b?: Answer }> {
  let a: Answer | undefined;
  let b: Answer | undefined;
  for (let i = 0; i < c.warmup; i++) {
    await before(c.s);
    await after(c.s);
  }
  const out = { before: [] as number[], after: [] as number[] };
  for (let i = 0; i < c.reps; i++) {
    let t = performance.now();
    b = await before(c.s);
    out.before.push(performance.now() - t);
    t = performance.now();
    a = await after(c.s);
    out.after.push(performance.now() - t);
  }
  return { ...out, a, b };
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const name = 'Before and after: a baseline build beside this one (CPU, end to end)';
  const dir = process.env.BATCHWISE_BENCH_BASELINE;
  const entry = dir ? join(dir, 'dist', 'src', 'index.js') : undefined;
  if (!entry || !existsSync(entry)) {
    return { name, rows: [], notes: [`Not run: set BATCHWISE_BENCH_BASELINE to a checkout with dist/ built (${entry ?? 'unset'}).`] };
  }
  const base = (await import(pathToFileURL(entry).href)) as { solveScenario: Solve };
  const rows: BenchSection['rows'] = [];
  for (const c of cases(ctx.quick)) {
    ctx.log(c.name);
    const r = await alternate(c, (s) => base.solveScenario(s), (s) => solveScenario(s, { percentiles: false }));
    const before = median(r.before);
    const after = median(r.after);
    rows.push({
      scenario: c.name,
      'S before': r.b!.solver.maxQueue,
      'S after': r.a!.solver.maxQueue,
      'iterations before': r.b!.solver.totalIterations,
      'iterations after': r.a!.solver.totalIterations,
      'before median ms': fmt(before),
      'after median ms': fmt(after),
      'after / before': fmt(after / before),
      '|Δg|/g': fmt(Math.abs(r.a!.averageCost - r.b!.averageCost) / r.b!.averageCost, 2),
    });
  }
  return {
    name,
    machineNote: `Baseline: ${dir}. Runs alternate between the builds; single solves: median of 31 (11 for B = 128) after 20 warm-up runs of each; MMPP cases: median of 3 runs each (minutes).`,
    rows,
    notes: ['iterations: policy-iteration steps over every S the automatic search tried.'],
  };
}
