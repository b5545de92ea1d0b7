import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import { isDeterministicLaw } from '../model/tilt.js';
import { evaluatePolicy, type DetailedEvaluation } from '../policy/evaluate.js';
import type { Policy } from '../policy/policy.js';
import type { ResponseTimeLaw } from './law.js';
import { deterministicLaw } from './mixture.js';
import { percentilesOf, type LatencyPercentiles } from './percentiles.js';
import { transformLaw } from './transformLaw.js';
import { uniformizedLaw, type UniformizedOptions } from './uniformized.js';

export type { LatencyPercentiles } from './percentiles.js';
export type { ResponseTimeLaw } from './law.js';

export interface LatencyAccuracy {
  /** Bound on |computed − exact| of P(R ≤ t). */
  readonly cdf: number;
  /** Relative uncertainty in t of the percentiles: the largest over the five. */
  readonly percentileRelative: number;
  /** Probability mass the method left out (included in `cdf`). */
  readonly lostMass: number;
}

export interface ResponseTimeDistribution {
  /** Times, seconds. */
  readonly grid: Float64Array;
  /** P(R ≤ grid[i]). */
  readonly cdf: Float64Array;
  readonly percentiles: LatencyPercentiles;
  /** E[R] from the same representation, seconds. */
  readonly mean: number;
  readonly accuracy: LatencyAccuracy;
  /** `mixture` (deterministic service), `uniformization` (exponential) or `transform` (gamma). */
  readonly method: string;
  /** Size of the representation: terms, uniformization steps or transform evaluations. */
  readonly work: number;
}

export interface LawOptions extends UniformizedOptions {
  /**
   * Deterministic service: a term, state or share that moves P(R ≤ t) by less than this is left
   * out, its size summed into the stated error (default 1e-19, mixture.ts PRUNE).
   */
  readonly prune?: number;
}

export interface LatencyOptions extends LawOptions {
  /** Grid points, evenly spaced on (0, 1.25·p99.9] (default 32). */
  readonly gridPoints?: number;
  /** Relative width at which a percentile's bracket stops (default 1e-9). */
  readonly tolerance?: number;
}

/** True for service laws with an exact uniformized route (exponential: EXPONENTIAL, or GAMMA with cv = 1). */
export function isExponentialLaw(p: { readonly distribution: string; readonly cv: number }): boolean {
  return p.distribution !== 'DETERMINISTIC' && p.cv === 1;
}

/**
 * The law of the response time R of a stationary policy (docs/model.md §9), by the method that is
 * exact for the service law: deterministic service → the shifted-Erlang mixture (mixture.ts);
 * exponential → uniformization of the absorbing chain (uniformized.ts, Poisson or MMPP arrivals);
 * gamma → the transform over (requests ahead, requests behind) inverted by Euler (transformLaw.ts).
 */
export function responseTimeLaw(model: CompiledModel, policy: Policy, evaluation?: DetailedEvaluation, opts: LawOptions = {}): ResponseTimeLaw {
  const ev = evaluation ?? evaluatePolicy(model.params, policy);
  if (isExponentialLaw(model.params)) return uniformizedLaw(model, policy, ev, opts);
  if (model.M !== 1) throw new LimitError('arrivalProcess', 'the response-time distribution under MMPP arrivals is implemented for exponential service only');
  if (isDeterministicLaw(model.params.distribution, model.params.cv)) return deterministicLaw(model, policy, ev, opts.prune);
  return transformLaw(model, policy, ev);
}

/** Percentiles p50…p99.9 and the CDF on a grid, from `responseTimeLaw`. */
export function responseTimeDistribution(model: CompiledModel, policy: Policy, evaluation?: DetailedEvaluation, opts: LatencyOptions = {}): ResponseTimeDistribution {
  const law = responseTimeLaw(model, policy, evaluation, opts);
  const search = percentilesOf(law, opts.tolerance ?? 1e-9);
  const points = opts.gridPoints ?? 32;
  const grid = new Float64Array(points);
  const cdf = new Float64Array(points);
  const span = 1.25 * search.percentiles.p999;
  for (let i = 0; i < points; i++) {
    grid[i] = (span * (i + 1)) / points;
    cdf[i] = Math.min(1, Math.max(0, law.cdf(grid[i])));
  }
  return {
    grid,
    cdf,
    percentiles: search.percentiles,
    mean: law.mean,
    accuracy: { cdf: law.cdfError, percentileRelative: search.relative, lostMass: law.lostMass },
    method: law.method,
    work: law.work,
  };
}

/** E[R] alone, from the law's own representation: the check that it reproduces docs/model.md §5's mean. */
export function responseTimeMean(model: CompiledModel, policy: Policy, evaluation?: DetailedEvaluation): number {
  return responseTimeLaw(model, policy, evaluation).mean;
}
