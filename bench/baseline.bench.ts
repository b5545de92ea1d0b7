/**
 * Before and after in one run: this build against a baseline build of an older commit, on the
 * single-solve rows (docs/model.md §6 cases, B = 128 near capacity) and on MMPP cases, both
 * builds in this process. Set BATCHWISE_BENCH_BASELINE to a checkout of the older commit with its
 * `dist/` built (`git worktree add ../base <commit> && cd ../base && npm ci && npm run build`);
 * without it the section says so and times nothing. The machinery: bench/beforeAfter.ts.
 */
import { pathToFileURL } from 'node:url';
import { solveScenario } from '../src/index.js';
import { alternate, baselineEntry, inProcess } from './beforeAfter.js';
import { chainScenario, mmppBenchScenario, THREE_PHASES } from './mmppModel.js';
import { singleSolveCases } from './solver.bench.js';
import { fmt, median } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

/** What both builds answer: the fields this section reads. */
interface Answer {
  readonly averageCost: number;
  readonly solver: { readonly maxQueue: number; readonly totalIterations: number };
}

interface Case {
  readonly name: string;
  readonly s: unknown;
  readonly reps: number;
  readonly warmup: number;
}

function cases(quick: boolean): Case[] {
  const single = singleSolveCases().map((c) => ({ name: c.name, s: c.s, reps: quick ? 3 : c.rvi ? 31 : 11, warmup: quick ? 2 : 20 }));
  const mmpp: Case[] = [
    { name: 'MMPP bench model, S = 500 (4 phases, B = 128)', s: mmppBenchScenario(500), reps: 3, warmup: 0 },
    // The one-model issue's case: three phases, B = 32, rates as given (mean ≈ 84 % of capacity).
    { name: 'MMPP 3 phases, B = 32, 80 % load, automatic S', s: chainScenario(THREE_PHASES, 32), reps: 3, warmup: 0 },
  ];
  return quick ? single : [...single, ...mmpp];
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const name = 'Before and after: a baseline build beside this one (CPU, end to end)';
  const where = baselineEntry();
  if ('missing' in where) return { name, rows: [], notes: [where.missing] };
  const { dir, entry } = where;
  const base = (await import(pathToFileURL(entry).href)) as { solveScenario: (s: unknown) => Promise<Answer> };
  const rows: BenchSection['rows'] = [];
  for (const c of cases(ctx.quick)) {
    ctx.log(c.name);
    const r = await alternate<Answer>(c.s, c, inProcess((s) => base.solveScenario(s)), inProcess((s) => solveScenario(s, { percentiles: false })));
    const before = median(r.before.map((x) => x.ms));
    const after = median(r.after.map((x) => x.ms));
    const b = r.before[r.before.length - 1].answer!;
    const a = r.after[r.after.length - 1].answer!;
    rows.push({
      scenario: c.name,
      'S before': b.solver.maxQueue,
      'S after': a.solver.maxQueue,
      'iterations before': b.solver.totalIterations,
      'iterations after': a.solver.totalIterations,
      'before median ms': fmt(before),
      'after median ms': fmt(after),
      'after / before': fmt(after / before),
      '|Δg|/g': fmt(Math.abs(a.averageCost - b.averageCost) / b.averageCost, 2),
    });
  }
  return {
    name,
    machineNote: `Baseline: ${dir}. Runs alternate between the builds; single solves: median of 31 (11 for B = 128) after 20 warm-up runs of each; MMPP cases: median of 3 runs each (minutes).`,
    rows,
    notes: ['iterations: policy-iteration steps over every S the automatic search tried.'],
  };
}
