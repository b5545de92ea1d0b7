import type { CompiledModel } from '../model/compile.js';
import type { DetailedEvaluation } from '../policy/evaluate.js';
import type { Policy } from '../policy/policy.js';
import { responseTimeLaw, type LatencyOptions } from './distribution.js';
import { quantile } from './percentiles.js';
import { RESULT_LAW_OPTIONS } from './summary.js';

/**
 * One percentile of a policy's law, decided against a target (docs/model.md §9.3): what planners
 * compare with a percentile target. The law is computed at the results' settings (several times
 * faster than the tight defaults); where the target lies so close to the percentile that the two
 * settings could decide differently, that one law is computed again at the tight defaults, and the
 * decision is theirs.
 */
export type LawSettings = 'results' | 'tight';

export interface TargetPercentile {
  /** The percentile, seconds. */
  readonly t: number;
  /** Its relative uncertainty in t (bracket and CDF error bound) at the settings it was computed at. */
  readonly relative: number;
  /** How the law was computed (`mixture`, `uniformization`, `transform`). */
  readonly method: string;
  readonly settings: LawSettings;
}

/**
 * The results' settings for a planner: their thresholds, stop rules and bracket, but no work
 * guard: a planner needs the law of every member it decides on (the tight defaults have no guard
 * either), where a result may go without its figures.
 */
export const PLAN_LAW_OPTIONS: LatencyOptions = { ...RESULT_LAW_OPTIONS, maxWork: Infinity };

/**
 * How many stated accuracies around a percentile a target must clear for the results' settings to
 * decide it: the tight percentile lies within the two stated accuracies of the results' one
 * (test/latency/resultAccuracy.test.ts), and the tight one's is at most the results' (far below it
 * where the thresholds matter: 9e-13 to 3e-10 against 9e-9 to 2.4e-7 relative on the §6 rows), so
 * twice the results' accuracy covers both, to the first order the stated accuracy is itself good to.
 */
export const DECISION_BAND = 2;

/** The percentile at `probability` of the law of `policy`, at the results' settings or the tight defaults. */
export function lawPercentile(model: CompiledModel, policy: Policy, ev: DetailedEvaluation, probability: number, settings: LawSettings): TargetPercentile {
  const opts = settings === 'results' ? PLAN_LAW_OPTIONS : {};
  const law = responseTimeLaw(model, policy, ev, opts);
  const q = quantile(law, probability, 0, opts.tolerance);
  return { t: q.t, relative: q.relative, method: law.method, settings };
}

/** True where a percentile at the results' settings is too close to `target` to decide it: within DECISION_BAND stated accuracies. */
export function undecided(q: { readonly t: number; readonly relative: number }, target: number): boolean {
  return Math.abs(q.t - target) <= DECISION_BAND * q.relative * q.t;
}

/**
 * The percentile at `probability` to compare with `target` (met when t ≤ target): at the results'
 * settings, or at the tight defaults where those are undecided. Either way the answer is the one
 * the tight defaults give, and it carries the accuracy of the settings it was computed at.
 */
export function percentileAgainst(model: CompiledModel, policy: Policy, ev: DetailedEvaluation, probability: number, target: number): TargetPercentile {
  const q = lawPercentile(model, policy, ev, probability, 'results');
  return undecided(q, target) ? lawPercentile(model, policy, ev, probability, 'tight') : q;
}
