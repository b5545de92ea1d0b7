import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import { evaluatePolicy, type DetailedEvaluation } from '../policy/evaluate.js';
import type { Policy } from '../policy/policy.js';
import { entryLaw, type EntryLaw } from './entry.js';
import { eulerNodes, eulerRule, eulerSum, type EulerRule } from './euler.js';
import { Passage } from './passage.js';
import type { LatencyPercentiles, ResponseTimeDistribution } from './types.js';

export type { LatencyAccuracy, LatencyPercentiles, ResponseTimeDistribution } from './types.js';

export interface LatencyOptions {
  /** Grid points, evenly spaced on (0, 1.25·p99.9] (default 32). */
  readonly gridPoints?: number;
  /** Relative width at which a percentile's bracket stops (default 1e-6). */
  readonly tolerance?: number;
}

const LEVELS: (keyof LatencyPercentiles)[] = ['p50', 'p90', 'p95', 'p99', 'p999'];
const PROBS = [0.5, 0.9, 0.95, 0.99, 0.999];

/**
 * The response-time distribution of a stationary policy on a compiled model (docs/model.md §9):
 * the transform of passage.ts inverted pointwise by Euler (euler.ts) with the atoms of
 * deterministic service taken out first and added back as exact steps, and each percentile by a
 * safeguarded Newton iteration on the bracket (the density comes from the same transform values).
 */
export function responseTimeDistribution(
  model: CompiledModel,
  policy: Policy,
  evaluation?: DetailedEvaluation,
  opts: LatencyOptions = {},
): ResponseTimeDistribution {
  if (model.M !== 1) throw new LimitError('arrivalProcess', 'the response-time distribution is implemented for Poisson arrivals only (MMPP: not yet)');
  const ev = evaluation ?? evaluatePolicy(model.params, policy);
  const entry = entryLaw(model, policy, ev.stationary, ev.levels);
  const passage = new Passage(model, policy, entry);
  const inv = new Inverter(passage, entry, eulerRule());
  const mass = passage.transform(0, 0).re;
  const lostMass = Math.max(0, 1 - mass);
  // Complex step: φ(ih) = φ(0) − ih·E[R] + O(h²), exact to rounding for h·E[R] ≪ 1e-8.
  const h = 1e-10 / Math.max(ev.meanResponseTime, 1e-12);
  const mean = -passage.transform(0, h).im / h;
  const tol = opts.tolerance ?? 1e-6;
  const percentiles = {} as Record<keyof LatencyPercentiles, number>;
  let rel = 0;
  let lo = 0;
  for (let q = 0; q < PROBS.length; q++) {
    const { t, density } = inv.quantile(PROBS[q], lo, mean, tol);
    percentiles[LEVELS[q]] = t;
    lo = t;
    if (density > 0) rel = Math.max(rel, inv.errorBound(lostMass) / (density * t));
  }
  const points = opts.gridPoints ?? 32;
  const grid = new Float64Array(points);
  const cdf = new Float64Array(points);
  const span = 1.25 * percentiles.p999;
  for (let i = 0; i < points; i++) {
    grid[i] = (span * (i + 1)) / points;
    cdf[i] = Math.min(1, Math.max(0, inv.at(grid[i]).F));
  }
  return {
    grid,
    cdf,
    percentiles,
    mean,
    accuracy: { cdf: inv.errorBound(lostMass), percentileRelative: rel, lostMass },
    transforms: inv.transforms + 2,
  };
}

/**
 * E[R] alone, from the same transform by a complex step (two transform evaluations): the check
 * that the entry law and the passage recursion reproduce docs/model.md §5's mean.
 */
export function responseTimeMean(model: CompiledModel, policy: Policy, evaluation?: DetailedEvaluation): number {
  if (model.M !== 1) throw new LimitError('arrivalProcess', 'the response-time distribution is implemented for Poisson arrivals only (MMPP: not yet)');
  const ev = evaluation ?? evaluatePolicy(model.params, policy);
  const passage = new Passage(model, policy, entryLaw(model, policy, ev.stationary, ev.levels));
  const h = 1e-10 / Math.max(ev.meanResponseTime, 1e-12);
  return -passage.transform(0, h).im / h;
}

/** Euler inversion of F and f at one t, atoms removed and added back. */
class Inverter {
  transforms = 0;
  private worstTruncation = 0;
  private readonly fRe: Float64Array;
  private readonly FRe: Float64Array;

  constructor(
    private readonly passage: Passage,
    private readonly entry: EntryLaw,
    private readonly rule: EulerRule,
  ) {
    this.fRe = new Float64Array(rule.coef.length);
    this.FRe = new Float64Array(rule.coef.length);
  }

  errorBound(lost: number): number {
    const A = this.rule.A;
    return Math.exp(-A) / (1 - Math.exp(-A)) + this.worstTruncation + lost;
  }

  at(t: number): { F: number; f: number } {
    const { re, im } = eulerNodes(this.rule, t);
    for (let k = 0; k < re.length; k++) {
      const v = this.passage.transform(re[k], im[k]);
      let vr = v.re;
      let vi = v.im;
      for (const a of this.entry.atoms) {
        // minus mass·e^(−θ·at)
        const m = a.mass * Math.exp(-re[k] * a.at);
        vr -= m * Math.cos(im[k] * a.at);
        vi += m * Math.sin(im[k] * a.at);
      }
      this.fRe[k] = vr;
      // F̂ = φ/θ
      const d = re[k] * re[k] + im[k] * im[k];
      this.FRe[k] = (vr * re[k] + vi * im[k]) / d;
    }
    this.transforms += re.length;
    const F = eulerSum(this.rule, t, this.FRe);
    const f = eulerSum(this.rule, t, this.fRe);
    this.worstTruncation = Math.max(this.worstTruncation, Math.abs(F.value - F.short));
    let steps = 0;
    for (const a of this.entry.atoms) if (t >= a.at) steps += a.mass;
    return { F: F.value + steps, f: Math.max(0, f.value) };
  }

  /** Smallest t with F(t) ≥ p: bracket, then Newton steps kept inside it (bisection when they leave). */
  quantile(p: number, from: number, mean: number, tol: number): { t: number; density: number } {
    let lo = from;
    let hi = Math.max(from, mean) * 1.5 || 1e-6;
    let at = this.at(hi);
    while (at.F < p) {
      lo = hi;
      hi *= 2;
      at = this.at(hi);
    }
    // An atom inside the bracket that the probability falls into is the answer.
    for (const a of this.entry.atoms) {
      if (a.at > lo && a.at <= hi) {
        const below = this.at(a.at * (1 - 1e-9)).F;
        const onto = this.at(a.at).F;
        if (below < p && onto >= p) return { t: a.at, density: Infinity };
        if (onto < p) lo = Math.max(lo, a.at);
        else hi = Math.min(hi, a.at);
      }
    }
    let t = hi;
    let density = at.f;
    let F = at.F;
    for (let it = 0; it < 60 && hi - lo > tol * hi; it++) {
      let next = density > 0 ? t - (F - p) / density : NaN;
      if (!(next > lo && next < hi)) next = (lo + hi) / 2;
      const v = this.at(next);
      t = next;
      F = v.F;
      density = v.f;
      if (F >= p) hi = t;
      else lo = t;
      if (Math.abs(F - p) < 1e-12) break;
    }
    return { t, density };
  }
}
