/**
 * The serve sums by recurrence (docs/model.md §3.2) against an older build, in one run:
 *   npx tsx bench/recurrence.compare.ts <baseline checkout> [reps] [cases.json]
 * solves each exponential / integer-shape gamma scenario below (or those of cases.json, an
 * array of { name, s }) with this tree and with the
 * baseline's src (alternately, `reps` times each, after one unmeasured solve of each), prints
 * the median seconds of both, and checks that the answers agree: the same policy below the
 * smaller S, and this tree's g inside the baseline's certified interval.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { solveScenarioDetailed } from '../src/solve/solveScenario.js';
import { median } from './stats.js';
import { scenario } from './solver.bench.js';
import type { Scenario } from '../src/model/scenario.js';

type Solve = typeof solveScenarioDetailed;

const FIT = { perItem: 0.0001438, base: 0.0018874 };
const atLoad = (rho: number, B: number) => (rho * B) / (FIT.perItem * B + FIT.base);

export const RECURRENCE_CASES: Array<{ name: string; s: Scenario }> = [
  { name: 'exponential B=32 90%', s: scenario(atLoad(0.9, 32), 1e-4, 32, 'EXPONENTIAL') },
  { name: 'exponential B=32 95%', s: scenario(atLoad(0.95, 32), 1e-4, 32, 'EXPONENTIAL') },
  { name: 'exponential B=64 90%', s: scenario(atLoad(0.9, 64), 1e-4, 64, 'EXPONENTIAL') },
  { name: 'gamma cv=0.5 B=32 95%', s: scenario(atLoad(0.95, 32), 1e-4, 32, 'GAMMA', 0.5) },
  { name: 'gamma cv=1/√2 B=64 90%', s: scenario(atLoad(0.9, 64), 1e-4, 64, 'GAMMA', Math.SQRT1_2) },
];

async function main(): Promise<void> {
  const baseline = process.argv[2];
  if (!baseline) throw new Error('usage: tsx bench/recurrence.compare.ts <baseline checkout> [reps]');
  const reps = Number(process.argv[3] ?? 3);
  const cases = process.argv[4] ? (JSON.parse(readFileSync(process.argv[4], 'utf8')) as typeof RECURRENCE_CASES) : RECURRENCE_CASES;
  const url = pathToFileURL(resolve(baseline, 'src/solve/solveScenario.ts')).href;
  const before = ((await import(url)) as { solveScenarioDetailed: Solve }).solveScenarioDetailed;
  const after = solveScenarioDetailed;
  const speedups: number[] = [];
  for (const c of cases) {
    const run = async (solve: Solve) => {
      const t = performance.now();
      const out = await solve(c.s, { percentiles: false });
      return { out, seconds: (performance.now() - t) / 1000 };
    };
    const times = { before: [] as number[], after: [] as number[] };
    let b: Awaited<ReturnType<typeof run>>;
    try {
      b = await run(before);
    } catch (e) {
      console.log(`${c.name.padEnd(24)} | refused: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    let a = await run(after);
    for (let i = 0; i < reps; i++) {
      b = await run(before);
      times.before.push(b.seconds);
      a = await run(after);
      times.after.push(a.seconds);
    }
    const rb = b.out.result;
    const ra = a.out.result;
    const n = Math.min(rb.solver.maxQueue, ra.solver.maxQueue) + 1;
    let differ = 0;
    for (let x = 0; x < n; x++) if (a.out.warmStart.policy[x] !== b.out.warmStart.policy[x]) differ++;
    const inside = ra.averageCostLower <= rb.averageCostUpper && ra.averageCostUpper >= rb.averageCostLower && ra.averageCost >= rb.averageCostLower * (1 - 1e-12) && ra.averageCost <= rb.averageCostUpper * (1 + 1e-12);
    const mb = median(times.before);
    const ma = median(times.after);
    speedups.push(mb / ma);
    console.log(
      [
        c.name.padEnd(24),
        `before ${mb.toFixed(3)} s (S ${rb.solver.maxQueue}, ${rb.solver.totalIterations} it, ${rb.solver.stopReason})`,
        `after ${ma.toFixed(3)} s (S ${ra.solver.maxQueue}, ${ra.solver.totalIterations} it, ${ra.solver.stopReason})`,
        `×${(mb / ma).toFixed(2)}`,
        `policy ${differ === 0 ? 'same' : `${differ} states differ`}`,
        `g ${inside ? 'inside' : 'OUTSIDE'} the old interval (Δg/g ${((ra.averageCost - rb.averageCost) / rb.averageCost).toExponential(1)})`,
      ].join(' | '),
    );
  }
  console.log(`median speed-up ×${median(speedups).toFixed(2)}`);
}

await main();
