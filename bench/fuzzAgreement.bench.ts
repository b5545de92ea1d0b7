/**
 * The fuzz against a baseline build: every valid scenario of the CI fuzz (test/solve/fuzz-*.test.ts,
 * the very same draws through test/helpers/fuzzCases.ts) solved by both builds, one after the other.
 * Issue 18 asks for the same answers: this build's g inside the baseline's certified interval
 * [averageCostLower, averageCostUpper], the same policy below S. The summed solve times are the
 * fuzz's solving cost on each build. Set BATCHWISE_BENCH_BASELINE as for the "Before and after"
 * section; without it the section says so and solves nothing.
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { solveScenario } from '../src/index.js';
import { FUZZ_PARTS, fuzzCases } from '../test/helpers/fuzzCases.js';
import { baselineEntry, type Run } from './beforeAfter.js';
import { fmt } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

/** The fields of a result both builds have. */
interface Answer {
  readonly averageCost: number;
  readonly averageCostLower: number;
  readonly averageCostUpper: number;
  readonly policy: { readonly actions: ArrayLike<number> };
  readonly solver: { readonly maxQueue: number };
}
type Solve = (s: unknown) => Promise<Answer>;

/** A solve's answer or its refusal, and how long it took (refusals are outcomes here, not failures). */
async function timed(solve: Solve, input: unknown): Promise<Run<Answer>> {
  const t = performance.now();
  try {
    const answer = await solve(input);
    return { ms: performance.now() - t, answer };
  } catch (e) {
    return { ms: performance.now() - t, error: e instanceof Error ? e.message : String(e) };
  }
}

/** First s below both S where the tables differ, or −1. */
function firstDifference(a: Answer, b: Answer): number {
  const S = Math.min(a.solver.maxQueue, b.solver.maxQueue);
  for (let s = 0; s < S; s++) if (a.policy.actions[s] !== b.policy.actions[s]) return s;
  return -1;
}

interface Tally {
  cases: number;
  both: number;
  refusedBoth: number;
  refusedBeforeOnly: number;
  refusedAfterOnly: number;
  inside: number;
  worstOutside: number;
  intersect: number;
  worstDg: number;
  samePolicy: number;
  sameS: number;
  msBefore: number;
  msAfter: number;
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const name = 'The fuzz against the baseline: the same answers';
  const where = baselineEntry();
  if ('missing' in where) return { name, rows: [], notes: [where.missing] };
  const { dir, entry } = where;
  const base = (await import(pathToFileURL(entry).href)) as { solveScenario: Solve };
  const before: Solve = (s) => base.solveScenario(s);
  const after: Solve = (s) => solveScenario(s, { percentiles: false }) as Promise<Answer>;
  const loadBefore = os.loadavg();
  const rows: BenchSection['rows'] = [];
  const mismatches: string[] = [];
  for (const [part, { seed, count, shape }] of Object.entries(FUZZ_PARTS)) {
    const n = ctx.quick ? Math.min(count, 200) : count;
    ctx.log(`${part}: ${n} scenarios`);
    const t: Tally = { cases: 0, both: 0, refusedBoth: 0, refusedBeforeOnly: 0, refusedAfterOnly: 0, inside: 0, worstOutside: 0, intersect: 0, worstDg: 0, samePolicy: 0, sameS: 0, msBefore: 0, msAfter: 0 };
    for (const c of fuzzCases(seed, n, shape)) {
      if (c.expectedField !== '') continue; // the broken ones are refused by validation in both
      t.cases++;
      const b = await timed(before, c.input);
      const a = await timed(after, c.input);
      t.msBefore += b.ms;
      t.msAfter += a.ms;
      if (!a.answer || !b.answer) {
        if (a.answer) t.refusedBeforeOnly++;
        else if (b.answer) t.refusedAfterOnly++;
        else t.refusedBoth++;
        if (a.answer || b.answer) mismatches.push(`${part}: refused by one build only (${a.error ? `after: ${a.error}` : `before: ${b.error}`}); ${c.where}`);
        continue;
      }
      t.both++;
      const g = a.answer.averageCost;
      const { averageCostLower: lo, averageCostUpper: hi } = b.answer;
      // The intervals bound the optimum of the truncated model at S (docs/model.md §3.3), g is the exact
      // cost on the untruncated system (§5): two certificates of one optimum must intersect, and the
      // two g must agree; g may sit outside either interval by the truncation's effect.
      if (!(a.answer.averageCostLower > hi || a.answer.averageCostUpper < lo)) t.intersect++;
      else mismatches.push(`${part}: the certified intervals are disjoint: [${a.answer.averageCostLower}, ${a.answer.averageCostUpper}] against [${lo}, ${hi}]; ${c.where}`);
      t.worstDg = Math.max(t.worstDg, Math.abs(g - b.answer.averageCost) / Math.abs(b.answer.averageCost));
      if (g >= lo && g <= hi) t.inside++;
      else {
        const out = (g < lo ? lo - g : g - hi) / Math.abs(b.answer.averageCost);
        t.worstOutside = Math.max(t.worstOutside, out);
        mismatches.push(`${part}: g = ${g} outside [${lo}, ${hi}] by ${out.toExponential(2)} relative; ${c.where}`);
      }
      if (a.answer.solver.maxQueue === b.answer.solver.maxQueue) t.sameS++;
      const d = firstDifference(a.answer, b.answer);
      if (d < 0) t.samePolicy++;
      else mismatches.push(`${part}: policies differ first at s = ${d} (S ${b.answer.solver.maxQueue} → ${a.answer.solver.maxQueue}); ${c.where}`);
    }
    rows.push({
      part,
      'valid scenarios': t.cases,
      'solved by both': t.both,
      'refused by both': t.refusedBoth,
      'refused before only': t.refusedBeforeOnly,
      'refused after only': t.refusedAfterOnly,
      'g inside the old interval': t.inside,
      'worst outside (rel.)': t.worstOutside === 0 ? 0 : fmt(t.worstOutside, 2),
      'intervals intersect': t.intersect,
      'worst |Δg|/g': t.worstDg === 0 ? 0 : fmt(t.worstDg, 2),
      'same S': t.sameS,
      'same policy below S': t.samePolicy,
      'solving before (s)': fmt(t.msBefore / 1000),
      'solving after (s)': fmt(t.msAfter / 1000),
      'before / after': fmt(t.msBefore / t.msAfter),
    });
  }
  return {
    name,
    machineNote: `Baseline: ${dir}. Every valid scenario of the four CI fuzz parts (the broken ones are refused by validation alike), solved by the baseline and then by this build in one process; times are the summed wall time of the solves (percentiles off); load average ${loadText(loadBefore)} before and ${loadText(os.loadavg())} after (1 / 5 / 15 min).`,
    rows,
    notes: [
      'g inside the old interval: this build’s averageCost within the baseline’s certified [averageCostLower, averageCostUpper]. The interval bounds the optimum of the model truncated at S, averageCost is the exact cost of the policy on the untruncated system, so g can sit outside even its own build’s interval by the truncation’s effect (tail mass < 1e-9): both builds do on the same cases.',
      'intervals intersect: the two certified intervals of the same optimum overlap (disjoint ones would mean a wrong certificate); |Δg|/g: this build’s averageCost against the baseline’s.',
      'same policy below S: the action tables agree at every s below the smaller of the two S.',
      ...(mismatches.length === 0 ? ['No scenario differs.'] : [`${mismatches.length} differences; the first ones:`, ...mismatches.slice(0, 8).map((m) => m.slice(0, 400))]),
    ],
  };
}

function loadText(l: number[]): string {
  return l.map((x) => x.toFixed(1)).join(' / ');
}
