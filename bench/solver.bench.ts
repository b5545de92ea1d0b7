/**
 * Single-solve speed on the CPU: the docs/model.md §6 rows and a heavy-traffic case, with the
 * default solver (policy iteration) against the in-repo textbook RVI baseline, both
 * end to end (automatic S, exact evaluation) at tolerance 1e-9.
 */
import { solveScenario, type Scenario, type SolveResult } from '../src/index.js';
import { fmt, median, timeRuns } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

const FIT = { perItem: 0.0001438, base: 0.0018874 };

/** A reference-fit scenario (docs/model.md §6) at rate λ, power weight, B and service law. */
export function scenario(arrivalRate: number, powerWeight: number, B = 32, distribution: 'DETERMINISTIC' | 'EXPONENTIAL' | 'GAMMA' = 'DETERMINISTIC', cv?: number): Scenario {
  return {
    arrivalRate,
    maxBatchSize: B,
    serviceTime: { linear: { ...FIT }, distribution, ...(cv !== undefined ? { cv } : {}) },
    power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
    objective: { latencyWeight: 1, powerWeight },
  };
}

/** The capacity B/l(B) of the reference fit, requests/s. */
export function capacity(B: number): number {
  return B / (FIT.perItem * B + FIT.base);
}

/** The single-solve rows: the docs/model.md §6 cases and heavy traffic at B = 128. */
export function singleSolveCases(): Array<{ name: string; s: Scenario; rvi: boolean }> {
  return [
    { name: 'λ=1500 w_pow=0', s: scenario(1500, 0), rvi: true },
    { name: 'λ=1500 w_pow=1e-4', s: scenario(1500, 1e-4), rvi: true },
    { name: 'λ=4000 w_pow=1e-4', s: scenario(4000, 1e-4), rvi: true },
    { name: 'λ=4000 w_pow=1e-3', s: scenario(4000, 1e-3), rvi: true },
    { name: 'λ=2000 exponential', s: scenario(2000, 1e-4, 32, 'EXPONENTIAL'), rvi: true },
    { name: 'λ=2000 gamma cv=0.7', s: scenario(2000, 1e-4, 32, 'GAMMA', 0.7), rvi: true },
    { name: 'B=128, λ = 97% of capacity', s: scenario(0.97 * capacity(128), 1e-4, 128), rvi: false },
  ];
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const cases = singleSolveCases();
  const reps = ctx.quick ? 3 : 31;
  const rows: BenchSection['rows'] = [];
  for (const c of cases) {
    ctx.log(c.name);
    let fast: SolveResult | undefined;
    // Millisecond solves need a real warm-up: the first dozens of calls still run unoptimised code.
    const piMs = await timeRuns(async () => (fast = await solveScenario(c.s, { percentiles: false })), c.rvi ? reps : Math.max(3, reps / 3), ctx.quick ? 2 : 20);
    const row: Record<string, string | number> = {
      scenario: c.name,
      'S': fast!.solver.maxQueue,
      'PI median ms': fmt(median(piMs)),
      'PI iterations': fast!.solver.iterations,
    };
    if (c.rvi) {
      let slow: SolveResult | undefined;
      const rviMs = await timeRuns(async () => (slow = await solveScenario(c.s, { method: 'VALUE_ITERATION', percentiles: false })), ctx.quick ? 1 : 3, 1);
      const same = JSON.stringify(slow!.policy.actions) === JSON.stringify(fast!.policy.actions);
      row['RVI median ms'] = fmt(median(rviMs));
      row['RVI sweeps'] = slow!.solver.totalIterations;
      row['speed-up'] = `${fmt(median(rviMs) / median(piMs))}×`;
      row['same policy'] = same ? 'yes' : 'NO';
      row['|Δg|/g'] = fmt(Math.abs(slow!.averageCost - fast!.averageCost) / fast!.averageCost, 2);
    }
    row.g = fast!.averageCost.toPrecision(12);
    rows.push(row);
  }
  return {
    name: 'Single solves (CPU, tolerance 1e-9, automatic S, end to end)',
    rows,
    notes: [
      'PI = the default solver (policy iteration with exact banded evaluation, Odoni bounds of a final Bellman step).',
      'RVI = the in-repo textbook relative value iteration (the baseline), same model, same S search, same exact evaluation.',
      'Times include validation, the automatic choice of S and the exact f64 evaluation of the returned policy.',
    ],
  };
}
