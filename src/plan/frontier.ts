import { ScenarioError } from '../model/errors.js';
import type { Backend, ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import type { Evaluation } from '../policy/evaluate.js';
import type { Policy } from '../policy/policy.js';
import { powerBound, type PowerBound } from './powerBound.js';
import { splitPair, tieWeight, walkTowardPower } from './search.js';
import { lagrangian, WeightSolver, type WeightedPolicy } from './weights.js';

/**
 * The latency–power Pareto frontier: the deterministic policies that minimise
 * E[P] + μ·E[R] for some weight μ > 0 (the vertices of the lower-left convex hull of all
 * achievable (E[R], E[P]) points), found exactly by following the weights at which
 * neighbouring vertices tie (Eisner–Severance), never by a grid of weights.
 */
export interface FrontierVertex {
  readonly policy: Policy;
  /** Exact figures; averageCost is the Lagrangian at `solvedAt`. */
  readonly figures: Evaluation;
  /** The weight (W/s) the vertex was solved at. */
  readonly solvedAt: number;
  /** The vertex minimises E[P] + μ·E[R] for every μ in [weightLow, weightHigh] (weightHigh = Infinity at the latency end). */
  readonly weightLow: number;
  readonly weightHigh: number;
}

export interface Frontier {
  /** Increasing mean response time, strictly decreasing mean power. */
  readonly vertices: FrontierVertex[];
  /** breakpoints[i]: the weight at which vertices i and i+1 tie (decreasing). */
  readonly breakpoints: number[];
  readonly powerBound: PowerBound;
  /** True when the last vertex reaches the least possible power: the frontier is complete. */
  readonly complete: boolean;
  /** The latency at which the walk towards the power end stopped (seconds), when incomplete. */
  readonly maxLatency: number;
  readonly resolution: number;
  /** Solves used. */
  readonly solves: number;
}

export interface FrontierOptions {
  /** Stop the walk towards the power end once a vertex reaches this mean response time (s). Default: 4× the least achievable. */
  readonly maxLatency?: number;
  /**
   * Extend the frontier at least to this mean latency (s) and down to this mean power (W),
   * e.g. to draw a target on it; beyond maxLatency if need be.
   */
  readonly reach?: { readonly latency?: number; readonly power?: number };
  /** Relative resolution of the vertex search (default DEFAULT_FRONTIER_RESOLUTION). */
  readonly resolution?: number;
  readonly signal?: AbortSignal;
  readonly backend?: Backend;
  /** Called before each solve, for progress lines. */
  readonly onProgress?: (step: string) => void;
}

export const DEFAULT_MAX_LATENCY_FACTOR = 4;
/**
 * A frontier for a table or a chart stops splitting where the best vertex between two known
 * ones would improve on them by less than 1e-4 of the cost (e.g. 13 mW of 135 W): heavy
 * traffic has hundreds of vertices a few mW apart. Planning searches use the fine
 * DEFAULT_RESOLUTION of search.ts instead.
 */
export const DEFAULT_FRONTIER_RESOLUTION = 1e-4;

export async function computeFrontier(input: unknown, opts: FrontierOptions = {}): Promise<Frontier> {
  const scenario = asValidated(input);
  const resolution = opts.resolution ?? DEFAULT_FRONTIER_RESOLUTION;
  const ws = new WeightSolver(scenario, { signal: opts.signal, backend: opts.backend, onProgress: opts.onProgress });
  const bound = powerBound(scenario.params);
  const latencyEnd = await ws.solveAt(Infinity);
  const minLatency = latencyEnd.figures.meanResponseTime;
  const asked = opts.maxLatency ?? DEFAULT_MAX_LATENCY_FACTOR * minLatency;
  if (!(asked > minLatency)) {
    throw new ScenarioError('maxLatency', `must exceed the least achievable mean response time ${minLatency} s (got ${asked} s)`);
  }
  let maxLatency = Math.max(asked, opts.reach?.latency ?? 0);
  const power = opts.reach?.power;
  const powerReachable = power !== undefined && power > bound.infimum;
  const walk = await walkTowardPower(ws, latencyEnd, bound, resolution, (v) =>
    Math.min(
      Math.log(v.figures.meanResponseTime / maxLatency),
      powerReachable ? Math.log((power - bound.infimum) / (v.figures.meanPower - bound.infimum)) : Infinity,
    ),
  );
  if (powerReachable) {
    const within = [latencyEnd, ...walk.found].find((v) => v.figures.meanPower <= power);
    if (within) maxLatency = Math.max(maxLatency, within.figures.meanResponseTime);
  }
  const points = await fillBetween(ws, [latencyEnd, ...walk.found], resolution, maxLatency);
  const full = lowerHull(points);
  const allBreakpoints: number[] = [];
  for (let i = 0; i + 1 < full.length; i++) allBreakpoints.push(tieWeight(full[i], full[i + 1]));
  // Splitting the pair that straddles maxLatency can find several vertices past it: keep the first.
  const past = full.findIndex((v) => v.figures.meanResponseTime >= maxLatency);
  const hull = past >= 0 ? full.slice(0, past + 1) : full;
  const breakpoints = allBreakpoints.slice(0, hull.length - 1);
  const vertices = hull.map((v, i): FrontierVertex => ({
    policy: v.policy,
    figures: v.figures,
    solvedAt: v.weight,
    weightHigh: i === 0 ? Infinity : allBreakpoints[i - 1],
    // The last vertex: optimal down to 0 when it reaches the least possible power (no
    // policy has lower power, and among those it has the least latency); otherwise down to
    // its breakpoint with the next vertex found, or the weight it was solved at.
    weightLow: i < allBreakpoints.length ? allBreakpoints[i] : walk.powerEnd ? 0 : v.weight,
  }));
  return { vertices, breakpoints, powerBound: bound, complete: walk.powerEnd, maxLatency, resolution, solves: ws.solves };
}

/**
 * Follows the breakpoints between consecutive known vertices, recursively: split each pair at
 * its tie weight until every pair is adjacent. Pairs that start at or beyond `maxLatency` are
 * not split (the walk's last step may overshoot it). Returns every vertex found (unsorted).
 */
export async function fillBetween(
  ws: WeightSolver,
  known: WeightedPolicy[],
  resolution: number,
  maxLatency = Infinity,
): Promise<WeightedPolicy[]> {
  const out = [...known];
  const stack: [WeightedPolicy, WeightedPolicy][] = [];
  for (let i = 0; i + 1 < known.length; i++) stack.push([known[i], known[i + 1]]);
  while (stack.length > 0) {
    const [a, c] = stack.pop()!;
    if (!(c.figures.meanResponseTime > a.figures.meanResponseTime) || !(a.figures.meanPower > c.figures.meanPower)) continue;
    if (a.figures.meanResponseTime >= maxLatency) continue;
    const split = await splitPair(ws, a, c, resolution);
    if (split.vertex) {
      out.push(split.vertex);
      stack.push([split.vertex, c], [a, split.vertex]);
    }
  }
  return out;
}

/**
 * The lower-left convex hull (monotone chain) of the points: sorted by latency, power
 * strictly decreasing, slopes strictly increasing. Every solve returns an optimal policy,
 * so in exact arithmetic all points are hull vertices already; this removes duplicates
 * (the same point found twice) and any point a solver tolerance left a hair above the hull.
 */
export function lowerHull(points: WeightedPolicy[]): WeightedPolicy[] {
  const sorted = [...points].sort(
    (x, y) => x.figures.meanResponseTime - y.figures.meanResponseTime || x.figures.meanPower - y.figures.meanPower,
  );
  const hull: WeightedPolicy[] = [];
  for (const p of sorted) {
    if (hull.length > 0 && !(p.figures.meanPower < hull[hull.length - 1].figures.meanPower)) continue;
    while (hull.length >= 2) {
      const o = hull[hull.length - 2];
      const a = hull[hull.length - 1];
      // Keep a only if it lies strictly below the chord o→p, i.e. on the E[P] + μ·E[R] line through
      // o and p at their tie weight, a costs less.
      const mu = tieWeight(o, p);
      if (lagrangian(a.figures, mu) < lagrangian(o.figures, mu)) break;
      hull.pop();
    }
    hull.push(p);
  }
  return hull;
}

/**
 * A validated scenario from either form. Planning covers every arrival model: with MMPP
 * arrivals (docs/model.md §7) the weight solves return one table per phase, the exact
 * evaluations and mixes run on (queue, phase), and simulations draw MMPP arrivals.
 */
export function asValidated(input: unknown): ValidatedScenario {
  if (typeof input === 'object' && input !== null && 'params' in input && 'solver' in input) {
    const x = input as ValidatedScenario;
    if (x.params.meanService instanceof Float64Array) return x;
  }
  return validateScenario(input);
}
