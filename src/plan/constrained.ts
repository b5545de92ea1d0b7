import { buildArrivalTable } from '../model/arrivalTable.js';
import { ScenarioError } from '../model/errors.js';
import type { Backend, ModelParams } from '../model/scenario.js';
import { describePolicy } from '../solve/result.js';
import { planned, type Figures, type PlannedPolicy } from './figures.js';
import { asValidated } from './frontier.js';
import { buildMix, commonRecurrentState, evaluated, reduceToSingleState, type Evaluated, type Mix } from './mix.js';
import { powerBound, type PowerBound } from './powerBound.js';
import { DEFAULT_RESOLUTION, splitPair, walkTowardPower, type WalkProgress } from './search.js';
import { formatDuration, formatPower } from './units.js';
import { WeightSolver, type WeightedPolicy } from './weights.js';

/**
 * SLO-constrained solves through the Lagrange weight:
 *   latency target T:  minimise E[P] subject to E[R] ≤ T;
 *   power budget W:    minimise E[R] subject to E[P] ≤ W.
 * Over all (randomised, history-dependent) policies the achievable (E[R], E[P]) set is the
 * convex hull of the deterministic policies' points, so both optima lie on the lower-left hull
 * (the frontier) where it crosses the target. The search walks from the latency end until
 * it has a vertex past the target, then follows breakpoints: split the bracketing pair at
 * the weight where they tie; a new vertex replaces the end on its side of the target; when
 * none exists the pair is adjacent and the optimum is their mix (mix.ts).
 */
export type PlanTarget = { readonly kind: 'latency'; readonly seconds: number } | { readonly kind: 'power'; readonly watts: number };

export interface PlanResult {
  readonly target: PlanTarget;
  /**
   * 'binding': the optimum sits on the target, between two adjacent frontier vertices, and is
   * their mix. 'slack': an end of the frontier already satisfies the target (the least-power
   * policy for a latency target, the least-latency policy for a power budget): no mix needed.
   */
  readonly status: 'binding' | 'slack';
  /** The constrained optimum's figures (the mix's when binding). */
  readonly optimum: Figures;
  readonly mix: Mix | null;
  /**
   * The mix of the two adjacent frontier vertices themselves (the bracket), switching at their
   * most visited common state: the same optimum as `mix` (within the resolution), as a
   * switch between two frontier policies rather than a randomisation in one state.
   */
  readonly vertexMix: Mix | null;
  /** The best deterministic policy found that satisfies the target, with its exact figures. */
  readonly deterministic: PlannedPolicy;
  /** The two adjacent frontier vertices around the target and the weight (W/s) at which they tie. */
  readonly bracket: { readonly lower: PlannedPolicy; readonly upper: PlannedPolicy; readonly weight: number } | null;
  /** The least achievable mean response time (s) and the least mean power any stable policy can approach (W). */
  readonly limits: { readonly minLatency: number; readonly powerBound: PowerBound };
  readonly solves: number;
}

export interface PlanOptions {
  readonly resolution?: number;
  readonly signal?: AbortSignal;
  readonly backend?: Backend;
  /** Field name used in errors about the target (the CLI flag, the RPC field). */
  readonly targetField?: string;
  /** Called before each solve, for progress lines. */
  readonly onProgress?: (step: string) => void;
}

export async function planScenario(input: unknown, target: PlanTarget, opts: PlanOptions = {}): Promise<PlanResult> {
  const scenario = asValidated(input);
  const p = scenario.params;
  const B = p.maxBatchSize;
  const resolution = opts.resolution ?? DEFAULT_RESOLUTION;
  const ws = new WeightSolver(scenario, { signal: opts.signal, backend: opts.backend, onProgress: opts.onProgress });
  const bound = powerBound(p);
  const latencyEnd = await ws.solveAt(Infinity);
  const limits = { minLatency: latencyEnd.figures.meanResponseTime, powerBound: bound };
  const field = opts.targetField ?? (target.kind === 'latency' ? 'latencyTarget' : 'powerBudget');
  const rule = targetRule(target, bound);
  checkFeasible(p, target, latencyEnd, bound, field);

  const slack = (v: WeightedPolicy): PlanResult => {
    const det = planned(p, v.policy, v.figures);
    return { target, status: 'slack', optimum: det, mix: null, vertexMix: null, deterministic: det, bracket: null, limits, solves: ws.solves };
  };
  // A power budget the least-latency policy already meets: nothing to trade.
  if (!rule.left(latencyEnd.figures)) return slack(latencyEnd);

  const walk = await walkTowardPower(ws, latencyEnd, bound, resolution, rule.progress);
  const points = [latencyEnd, ...walk.found];
  const last = points[points.length - 1];
  if (walk.powerEnd && rule.left(last.figures)) {
    // The least-power policy meets the latency target: the constraint is slack.
    return slack(last);
  }
  let a = latencyEnd;
  let c = last;
  for (const v of points) if (rule.left(v.figures) && v.figures.meanResponseTime > a.figures.meanResponseTime) a = v;
  for (const v of points) if (!rule.left(v.figures) && v.figures.meanResponseTime < c.figures.meanResponseTime) c = v;

  let weight: number;
  for (;;) {
    const split = await splitPair(ws, a, c, resolution);
    weight = split.weight;
    if (!split.vertex) break;
    if (rule.left(split.vertex.figures)) a = split.vertex;
    else c = split.vertex;
  }
  const pmfs = buildArrivalTable(p);
  const ea = evaluated(p, a.policy, pmfs);
  const ec = evaluated(p, c.policy, pmfs);
  // Intermediates may sit above the tie line by the resolution (vertices it merges) or by rounding.
  const reduced = reduceToSingleState(p, ea, ec, weight, rule.left, 10 * resolution, pmfs);
  const common = commonRecurrentState(p, ea, ec);
  if (common < 0) throw new Error('the two adjacent frontier policies share no recurrent state: they cannot be mixed by switching');
  const vertexMix = buildMix(p, ea, ec, common, rule.share(ea.ev, ec.ev), pmfs);
  const single = reduced && reduced.left.ev.stationary[reduced.state] > 0 && reduced.right.ev.stationary[reduced.state] > 0;
  const mix = single ? buildMix(p, reduced.left, reduced.right, reduced.state, rule.share(reduced.left.ev, reduced.right.ev), pmfs) : vertexMix;
  // The mixes' figures come from their own embedded chains, not from the formula that chose
  // their probabilities: they must land on the target (rounding aside), or something is wrong.
  for (const m of [mix, vertexMix]) {
    if (Math.abs(rule.metric(m.figures) - rule.bound) > 1e-9 * rule.bound) {
      throw new Error(`internal: the mix's exact ${rule.metricName} is ${rule.metric(m.figures)}, not the target ${rule.bound}`);
    }
  }
  const candidates: Evaluated[] = [ea, ec, ...(reduced ? [reduced.left, reduced.right, ...reduced.evaluated] : [])];
  const best = bestDeterministic(candidates, rule);
  return {
    target,
    status: 'binding',
    optimum: mix.figures,
    mix,
    vertexMix,
    deterministic: planned(p, best.policy, best.ev),
    bracket: { lower: planned(p, a.policy, ea.ev), upper: planned(p, c.policy, ec.ev), weight },
    limits,
    solves: ws.solves,
  };
}

interface TargetRule {
  /** Left of the target along the frontier (increasing latency): feasible for latency, infeasible for power. */
  readonly left: (f: Figures) => boolean;
  readonly feasible: (f: Figures) => boolean;
  /** Better of two feasible figures. */
  readonly better: (x: Figures, y: Figures) => boolean;
  readonly progress: WalkProgress;
  /** θ putting the mix of first (left) and second (right) exactly on the target. */
  readonly share: (first: Figures, second: Figures) => number;
  /** The constrained quantity and its bound. */
  readonly metric: (f: Figures) => number;
  readonly metricName: string;
  readonly bound: number;
}

function targetRule(target: PlanTarget, bound: PowerBound): TargetRule {
  if (target.kind === 'latency') {
    const T = target.seconds;
    return {
      left: (f) => f.meanResponseTime <= T,
      feasible: (f) => f.meanResponseTime <= T,
      better: (x, y) => x.meanPower < y.meanPower,
      progress: (v) => Math.log(v.figures.meanResponseTime / T),
      share: (f1, f2) => (f2.meanResponseTime - T) / (f2.meanResponseTime - f1.meanResponseTime),
      metric: (f) => f.meanResponseTime,
      metricName: 'mean response time',
      bound: T,
    };
  }
  const W = target.watts;
  return {
    left: (f) => f.meanPower > W,
    feasible: (f) => f.meanPower <= W,
    better: (x, y) => x.meanResponseTime < y.meanResponseTime,
    progress: (v) => Math.log((W - bound.infimum) / (v.figures.meanPower - bound.infimum)),
    share: (f1, f2) => (W - f2.meanPower) / (f1.meanPower - f2.meanPower),
    metric: (f) => f.meanPower,
    metricName: 'mean power',
    bound: W,
  };
}

function bestDeterministic(candidates: Evaluated[], rule: TargetRule): Evaluated {
  let best: Evaluated | undefined;
  for (const e of candidates) if (rule.feasible(e.ev) && (!best || rule.better(e.ev, best.ev))) best = e;
  // The bracket always holds a feasible end (a for latency, c for power).
  return best!;
}

function checkFeasible(p: ModelParams, target: PlanTarget, latencyEnd: WeightedPolicy, bound: PowerBound, field: string): void {
  const f = latencyEnd.figures;
  if (target.kind === 'latency') {
    if (f.meanResponseTime > target.seconds) {
      const M = describePolicy(p, latencyEnd.policy).controlLimit;
      throw new ScenarioError(
        field,
        `${formatDuration(target.seconds)} cannot be met: the least achievable mean response time is ` +
          `${formatDuration(f.meanResponseTime)} (control limit ${M}, mean power ${formatPower(f.meanPower)})`,
      );
    }
    return;
  }
  const W = target.watts;
  if (W < bound.infimum || (W === bound.infimum && !bound.attained)) {
    const how = bound.attained
      ? `reached by serving batches of ${bound.batchSizes[0]} only`
      : `approached only as the queue and the latency grow without bound (batches of ${bound.batchSizes.join(' and ')})`;
    throw new ScenarioError(
      field,
      `${formatPower(W)} cannot be met: the least mean power of any stable policy is ${formatPower(bound.infimum)}, ${how}`,
    );
  }
}
