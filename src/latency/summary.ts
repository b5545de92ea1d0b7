import { compileModel, MIN_MAX_QUEUE, type CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import type { ModelParams } from '../model/scenario.js';
import { evaluatePolicy, type DetailedEvaluation } from '../policy/evaluate.js';
import { isDeterministicLaw } from '../model/tilt.js';
import { actionAt, type Policy } from '../policy/policy.js';
import { isExponentialLaw, responseTimeDistribution, type LatencyOptions, type LatencyPercentiles } from './distribution.js';

/** The response-time percentiles a result shows (docs/model.md §9), seconds, and how far to trust them. */
export interface LatencyFigures extends LatencyPercentiles {
  readonly accuracy: {
    /** Bound on the error of P(R ≤ t) at the points evaluated. */
    readonly cdf: number;
    /** Largest relative error bound of the five percentiles. */
    readonly percentileRelative: number;
  };
  /** How the distribution was computed: `mixture` (deterministic service) or `transform` (Euler inversion). */
  readonly method: string;
}

/** Either the figures or why there are none (a result states the gap rather than leaving it silent). */
export type LatencyOutcome = { readonly latency: LatencyFigures } | { readonly latencyUnavailable: string };

/**
 * The percentiles of `policy` from the model and evaluation a result was assembled from. A
 * LimitError (MMPP arrivals today, or a bound of the method) becomes the reason the figures are
 * missing: the rest of the result stands without them.
 */
export function latencyFigures(model: CompiledModel, policy: Policy, ev: DetailedEvaluation): LatencyOutcome {
  const tooSlow = lawCostReason(model, policy, ev);
  if (tooSlow !== undefined) return { latencyUnavailable: tooSlow };
  try {
    const d = responseTimeDistribution(model, policy, ev, RESULT_LAW_OPTIONS);
    const { p50, p90, p95, p99, p999 } = d.percentiles;
    return { latency: { p50, p90, p95, p99, p999, accuracy: { cdf: d.accuracy.cdf, percentileRelative: d.accuracy.percentileRelative }, method: d.method } };
  } catch (e) {
    if (e instanceof LimitError) return { latencyUnavailable: e.message };
    throw e;
  }
}

/**
 * Why the law of `policy` is not worth computing (the transform route over its cost guard), or
 * undefined when it is: planners that compute many laws ask first (src/plan/percentileTarget.ts).
 */
export function lawCostReason(model: CompiledModel, policy: Policy, ev: DetailedEvaluation): string | undefined {
  const work = passageWork(model, policy, ev.levels);
  const transformRoute = !isDeterministicLaw(model.params.distribution, model.params.cv) && !isExponentialLaw(model.params);
  if (model.M === 1 && transformRoute && work > MAX_PASSAGE_WORK) {
    return `the transform route would take too long here (${ev.levels} queue levels, ${work.toPrecision(2)} operations per transform over the bound ${MAX_PASSAGE_WORK})`;
  }
  return undefined;
}

/**
 * Cost guard for the transform route (random service times), which spends ~L²/2 · (count-law
 * width) per transform and some hundreds of transforms: ~2 s at 6e4 and 40 s and more for the
 * docs/model.md §6 rows (B = 32, ~8e5). Past it the result says why the figures are missing.
 * Deterministic service goes through the exact mixture, which needs no guard.
 */
export const MAX_PASSAGE_WORK = 1e5;

/**
 * Cost guard for the uniformized route (exponential service), in moves stepped (summed over the
 * steps; only states that hold mass are stepped): ~20 ns a move with the lazy expansion, so 3e7 keep a result's figures
 * under about a second. The docs/model.md §6 exponential row steps 5.4e6 at the results’ settings
 * (1.2e7 at the tight defaults).
 */
export const MAX_CHAIN_WORK = 3e7;

/**
 * How results compute the law. They show only the five percentiles, so no CDF grid (each grid
 * point is one more pass or inversion), and they need them to 1e-4 relative in t (the spec), not
 * to the 1e-10 the tight defaults give: every threshold below leaves out mass worth at most ~1e-9
 * of P(R ≤ t) in all, which stays in the stated CDF bound, and the percentiles' stated accuracy is
 * that bound over density·t, ~1e-7 to 3e-6 on the §6 rows (test/latency/resultAccuracy.test.ts).
 *   - search: brackets closed at 1e-7 relative (Newton's last steps are quadratic: the bracket ends
 *     far inside it);
 *   - mixture (deterministic): terms, states and shares under 1e-13 of P(R ≤ t) left out (1e-19
 *     by default);
 *   - uniformization (exponential): entry points under 1e-12 dropped, state masses under 1e-14
 *     dropped rather than stepped, the steps stopped once the survival is under 1e-10.
 * The mean of this law is not what a result shows (it shows §5's exact E[R]); the tight defaults
 * reproduce it to 1e-9 (test/latency/mean.test.ts).
 */
export const RESULT_LAW_OPTIONS: LatencyOptions = {
  gridPoints: 0,
  tolerance: 1e-7,
  prune: 1e-13,
  maxWork: MAX_CHAIN_WORK,
  entryMinMass: 1e-12,
  dropBelow: 1e-14,
  survivalStop: 1e-10,
};

function passageWork(model: CompiledModel, policy: Policy, levels: number): number {
  let width = 1;
  for (let s = 1; s <= levels; s++) {
    const a = actionAt(policy, s);
    if (a > 0) width = Math.max(width, model.pmfLength[a]);
  }
  return ((levels * levels) / 2) * width;
}

/**
 * A model for a policy evaluated without a solve (evaluate): S only bounds the solver's table
 * and tail coefficients, which the distribution does not read (it walks the evaluation's own
 * levels), so the smallest valid S, where serving B is an action, is enough.
 */
export function latencyModel(p: ModelParams): CompiledModel {
  return compileModel(p, Math.max(MIN_MAX_QUEUE, p.maxBatchSize));
}

/** latencyFigures for an evaluated policy that has no compiled model yet; a compile bound is a reason too. */
export function latencyOfEvaluation(p: ModelParams, policy: Policy, ev: DetailedEvaluation): LatencyOutcome {
  let model: CompiledModel;
  try {
    model = latencyModel(p);
  } catch (e) {
    if (e instanceof LimitError) return { latencyUnavailable: e.message };
    throw e;
  }
  return latencyFigures(model, policy, ev);
}

/**
 * The figures of a policy solved at S, recomputed as the solve computes them (its evaluation
 * extends past S, its model is compiled at S): what the service fills in for a result that was
 * solved or cached without them.
 */
export function latencyOfSolved(p: ModelParams, policy: Policy, S: number, signal?: AbortSignal): LatencyOutcome {
  let model: CompiledModel;
  try {
    model = compileModel(p, S);
  } catch (e) {
    if (e instanceof LimitError) return { latencyUnavailable: e.message };
    throw e;
  }
  return latencyFigures(model, policy, evaluatePolicy(p, policy, { signal, minLevels: S + 1 }));
}
