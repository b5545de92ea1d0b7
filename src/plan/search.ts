import { LimitError } from '../model/errors.js';
import type { PowerBound } from './powerBound.js';
import { lagrangian, type WeightedPolicy, type WeightSolver } from './weights.js';

/**
 * The two moves every planning search is made of (Eisner & Severance 1976, for the
 * average-cost case): points are exact (E[R], E[P]) of deterministic policies, each optimal
 * at the weight it was solved at.
 */

/** Default relative resolution: a point is a new vertex only if it beats the tie cost by more than this. */
export const DEFAULT_RESOLUTION = 1e-8;

/** Weight at which two points cost the same: E[P]_a + μ·E[R]_a = E[P]_c + μ·E[R]_c. */
export function tieWeight(a: WeightedPolicy, c: WeightedPolicy): number {
  const dr = c.figures.meanResponseTime - a.figures.meanResponseTime;
  return (a.figures.meanPower - c.figures.meanPower) / dr;
}

export interface Split {
  /** The tie weight μ* of the pair. */
  readonly weight: number;
  /** A policy strictly below the pair's line at μ* (a new vertex), or null if the pair is adjacent. */
  readonly vertex: WeightedPolicy | null;
  /** The solve at μ* (the vertex if there is one; otherwise an optimal policy on the segment). */
  readonly solved: WeightedPolicy;
}

/**
 * Solves at the weight where a (lower latency) and c (lower power) tie. If the optimum there
 * costs less than the tie by more than `resolution` (relative), it is a frontier vertex
 * between them; otherwise a and c are adjacent vertices and μ* is their breakpoint.
 * Improvements below the resolution are policies that differ only in states the chain
 * almost never visits (their points differ in the ninth digit); the solver's own
 * tolerance (1e-9 by default) cannot tell them apart from ties anyway.
 */
export async function splitPair(ws: WeightSolver, a: WeightedPolicy, c: WeightedPolicy, resolution: number): Promise<Split> {
  const mu = tieWeight(a, c);
  const solved = await ws.solveAt(mu);
  const t = lagrangian(a.figures, mu);
  const gain = t - lagrangian(solved.figures, mu);
  return { weight: mu, vertex: gain > resolution * Math.abs(t) ? solved : null, solved };
}

export interface Walk {
  /** Vertices found on the way, in order of decreasing weight (increasing latency). */
  readonly found: WeightedPolicy[];
  /** True when the last one reaches the least possible power (within the resolution; only when a policy attains it). */
  readonly powerEnd: boolean;
}

/** Most steps a walk may take. */
const WALK_STEPS = 40;
/** Largest and smallest factor by which one step divides the weight. */
const WALK_MAX_FACTOR = 16;
const WALK_MIN_FACTOR = 1.5;
/** Used while there is only one point to extrapolate from. */
const WALK_FIRST_FACTOR = 8;
/** Aim this far past the target (in the log of the progress measure), so that one step usually brackets it. */
const WALK_AIM = 0.05;

/**
 * How far a vertex is from where the walk should stop: < 0 before, ≥ 0 once there. It must
 * grow as the weight falls, e.g. log(E[R]/target) for a latency target.
 */
export type WalkProgress = (v: WeightedPolicy) => number;

/**
 * Walks from the latency end towards the power end by lowering the weight until
 * `progress` reaches 0 or the least possible power is reached. This only finds a bracket:
 * the frontier between the points found is then followed exactly by splitPair. The first
 * weight is the frontier's own scale, (E[P]_a − P_min)/E[R]_a; later ones extrapolate
 * progress linearly in log μ (a secant step), so the walk neither crawls nor lands far past
 * the target, where solves are slow (the optimal queue, and so S, grows as μ falls).
 */
export async function walkTowardPower(
  ws: WeightSolver,
  start: WeightedPolicy,
  bound: PowerBound,
  resolution: number,
  progress: WalkProgress,
): Promise<Walk> {
  const found: WeightedPolicy[] = [];
  // Without a policy that attains the bound there is no power end: only `progress` stops the walk.
  const atEnd = (v: WeightedPolicy): boolean =>
    bound.attained && v.figures.meanPower - bound.infimum <= resolution * Math.abs(bound.infimum);
  if (atEnd(start)) return { found, powerEnd: true };
  let x = Math.log((start.figures.meanPower - bound.infimum) / start.figures.meanResponseTime);
  let prev: { x: number; f: number } | undefined;
  for (let step = 0; step < WALK_STEPS; step++) {
    const v = await ws.solveAt(Math.exp(x));
    found.push(v);
    if (atEnd(v)) return { found, powerEnd: true };
    const f = progress(v);
    if (f >= 0) return { found, powerEnd: false };
    let dx = -Math.log(WALK_FIRST_FACTOR);
    if (prev && f > prev.f) dx = ((WALK_AIM - f) * (x - prev.x)) / (f - prev.f);
    dx = Math.min(-Math.log(WALK_MIN_FACTOR), Math.max(-Math.log(WALK_MAX_FACTOR), dx));
    prev = { x, f };
    x += dx;
  }
  const last = found[found.length - 1];
  throw new LimitError(
    'frontier',
    `the walk towards the power end stopped after ${WALK_STEPS} solves (weight down to ${Math.exp(x)} W/s, mean response ` +
      `${last.figures.meanResponseTime} s, mean power ${last.figures.meanPower} W against the least possible ${bound.infimum} W)`,
  );
}
