/**
 * Hard regimes, before and after (issue 18): the scenarios of bench/hardRegimes.cases.ts solved by
 * a baseline build (BATCHWISE_BENCH_BASELINE) and by this one, alternating run by run. Every run
 * is one solveScenario call in a fresh process (bench/solveChild.ts), CPU only: a process of its
 * own so that a baseline solve of many minutes can be stopped at a limit, and so that both builds
 * start equally cold, as a CLI solve does. A row also checks that the answers agree: this build's
 * g within the baseline's certified interval and the same actions below the smaller S.
 */
import os from 'node:os';
import { alternate, baselineEntry, inChild, type Run } from './beforeAfter.js';
import { hardCases } from './hardRegimes.cases.js';
import { fmt, median } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

/** What both builds answer: the fields this section reads. */
interface Answer {
  readonly averageCost: number;
  readonly averageCostLower: number;
  readonly averageCostUpper: number;
  readonly policy: { readonly actions: readonly number[]; readonly phases?: ReadonlyArray<{ readonly actions: readonly number[] }> };
  readonly solver: { readonly maxQueue: number; readonly totalIterations: number };
}

/** A baseline run past this is the only one (see Schedule.onceAboveMs). */
const ONCE_ABOVE_MS = 20_000;
/** A baseline run is stopped here and reported as "> limit". */
const BEFORE_LIMIT_MS = 240_000;
/** This build must be done well within this; a run past it is a failure worth a row of its own. */
const AFTER_LIMIT_MS = 120_000;
const TARGET_MS = 2000;

const load = (): string => `${os.loadavg().map((l) => l.toFixed(1)).join(' / ')}`;

/** The median time of a build's runs, in seconds, with ">" when one hit its limit. */
function seconds(runs: readonly Run<Answer>[]): string {
  const ms = median(runs.map((r) => r.ms));
  return `${runs.some((r) => r.timedOut) ? '> ' : ''}${fmt(ms / 1000)}`;
}

/** States below S (each phase's, under MMPP) where the two policies differ, of those compared. */
function policyDiff(a: Answer, b: Answer): string {
  const S = Math.min(a.solver.maxQueue, b.solver.maxQueue);
  const tables = (x: Answer): Array<readonly number[]> => (x.policy.phases?.length ? x.policy.phases.map((p) => p.actions) : [x.policy.actions]);
  const ta = tables(a);
  const tb = tables(b);
  let differ = 0;
  let n = 0;
  let first = -1;
  for (let j = 0; j < Math.min(ta.length, tb.length); j++) {
    for (let s = 0; s < S; s++) {
      n++;
      if (ta[j][s] !== tb[j][s]) {
        differ++;
        if (first < 0) first = s;
      }
    }
  }
  if (ta.length !== tb.length) return `NO: ${tb.length} phases before, ${ta.length} after`;
  return differ === 0 ? 'yes' : `NO: ${differ} of ${n} states, first at s = ${first}`;
}

/** Whether g after lies in the baseline's certified interval [m, M], and by how much it misses. */
function inInterval(a: Answer, b: Answer): string {
  const g = a.averageCost;
  if (g >= b.averageCostLower && g <= b.averageCostUpper) return 'yes';
  const miss = g < b.averageCostLower ? (g - b.averageCostLower) / b.averageCostLower : (g - b.averageCostUpper) / b.averageCostUpper;
  return `NO: ${miss > 0 ? '+' : ''}${fmt(miss, 2)} relative`;
}

/** A refusal or failure in a few words: the error's first clause. */
function why(r: Run<Answer> | undefined): string {
  if (!r) return '';
  if (r.timedOut) return 'stopped at the limit';
  return r.error ? `refused: ${r.error.split(' (')[0].slice(0, 140)}` : '';
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const name = 'Hard regimes: before and after (CPU, one solve per fresh process)';
  const where = baselineEntry();
  if ('missing' in where) return { name, rows: [], notes: [where.missing] };
  const loadBefore = load();
  const before = inChild<Answer>(where.entry, BEFORE_LIMIT_MS);
  const after = inChild<Answer>(new URL('../src/index.js', import.meta.url).pathname, AFTER_LIMIT_MS);
  const rows: BenchSection['rows'] = [];
  const afterMs: number[] = [];
  const speedUps: Array<{ x: number; bound: boolean }> = [];
  const cases = ctx.quick ? hardCases().slice(0, 2) : hardCases();
  for (const c of cases) {
    ctx.log(c.name);
    const r = await alternate<Answer>(c.s, { reps: ctx.quick ? 1 : 3, warmup: 0, onceAboveMs: ONCE_ABOVE_MS }, before, after);
    const lb = r.before[r.before.length - 1];
    const la = r.after[r.after.length - 1];
    const b = lb.answer;
    const a = la.answer;
    const tb = median(r.before.map((x) => x.ms));
    const ta = median(r.after.map((x) => x.ms));
    afterMs.push(la.timedOut ? Number.POSITIVE_INFINITY : ta);
    const row: Record<string, string | number> = {
      scenario: c.name,
      'S before': b?.solver.maxQueue ?? '—',
      'S after': a?.solver.maxQueue ?? '—',
      'iterations before': b?.solver.totalIterations ?? '—',
      'iterations after': a?.solver.totalIterations ?? '—',
      'before s': seconds(r.before),
      'after s': seconds(r.after),
      runs: `${r.before.length} / ${r.after.length}`,
    };
    if (a && !la.timedOut && (b || lb.timedOut)) {
      const bound = lb.timedOut === true;
      speedUps.push({ x: tb / ta, bound });
      row['speed-up'] = `${bound ? '> ' : ''}${fmt(tb / ta)}×`;
    }
    if (a && b) {
      row['|Δg|/g'] = fmt(Math.abs(a.averageCost - b.averageCost) / b.averageCost, 2);
      row['g in old interval'] = inInterval(a, b);
      row['same policy below S'] = policyDiff(a, b);
    }
    const notes = [why(lb) && `before ${why(lb)}`, why(la) && `after ${why(la)}`].filter((x) => x);
    if (notes.length) row.note = notes.join('; ');
    ctx.log(`  before ${String(row['before s'])} s, after ${String(row['after s'])} s${notes.length ? ` (${notes.join('; ')})` : ''}`);
    rows.push(row);
  }
  const within = afterMs.filter((ms) => ms <= TARGET_MS).length;
  const ratios = speedUps.map((s) => s.x);
  const bounds = speedUps.filter((s) => s.bound).length;
  return {
    name,
    machineNote:
      `Baseline: ${where.dir}. Each run is one solveScenario call (percentiles off, BATCHWISE_GPU=off) in a fresh Node process, timed around the call: ` +
      `the solve end to end (validation, automatic S, exact evaluation), not the process start or the module load. The builds alternate run by run; ` +
      `median of 3 runs each, 1 when the first takes over ${ONCE_ABOVE_MS / 1000} s; a baseline run is stopped at ${BEFORE_LIMIT_MS / 1000} s. ` +
      `Load average ${loadBefore} before and ${load()} after (1 / 5 / 15 min) on ${os.cpus().length} shared cores.`,
    rows,
    notes: [
      `${within} of ${rows.length} rows answered in ≤ ${TARGET_MS / 1000} s after (a refusal counts, with its time to the refusal).`,
      `Median speed-up ${bounds ? '≥ ' : ''}${fmt(median(ratios))}× over the ${ratios.length} rows both builds answered or the baseline ran past its limit` +
        `${bounds ? ` (${bounds} of them lower bounds: "> " in the table)` : ''}.`,
      'Loads are fractions of the capacity B/l(B); under MMPP arrivals, of the mean rate. iterations: policy-iteration steps over every S the automatic search tried.',
      'g in old interval: this build\'s g within the baseline\'s certified interval [averageCostLower, averageCostUpper]; same policy below S: the actions of every state s < min(S before, S after), each phase\'s under MMPP.',
    ],
  };
}
