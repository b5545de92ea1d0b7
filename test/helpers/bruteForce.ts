import { denseAverageCost, type TinyScenario } from './denseEval.js';

/** Every deterministic policy on states 1..S (state 0 waits): each level takes one of `actionsAt(s)`. */
export function* allPolicies(S: number, actionsAt: (s: number) => readonly number[]): Generator<number[]> {
  const a = new Array<number>(S + 1).fill(0);
  function* rec(s: number): Generator<number[]> {
    if (s > S) {
      yield a.slice();
      return;
    }
    for (const act of actionsAt(s)) {
      a[s] = act;
      yield* rec(s + 1);
    }
  }
  yield* rec(1);
}

/**
 * The best of those policies by the independent dense evaluator, each followed past S by
 * `past(s)`; with how many were evaluated.
 */
export function bruteForceOptimum(
  tiny: TinyScenario,
  S: number,
  actionsAt: (s: number) => readonly number[],
  past: (s: number) => number,
): { best: number; bestPolicy: number[]; count: number } {
  let best = Infinity;
  let bestPolicy: number[] = [];
  let count = 0;
  for (const p of allPolicies(S, actionsAt)) {
    const g = denseAverageCost(tiny, (s) => (s <= S ? p[s] : past(s)));
    count++;
    if (g < best) {
      best = g;
      bestPolicy = p;
    }
  }
  return { best, bestPolicy, count };
}
