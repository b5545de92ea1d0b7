import { LimitError } from '../model/errors.js';
import type { ResponseTimeLaw } from './law.js';

export interface LatencyPercentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly p999: number;
}

export const PERCENTILE_LEVELS: readonly (keyof LatencyPercentiles)[] = ['p50', 'p90', 'p95', 'p99', 'p999'];
export const PERCENTILE_PROBABILITIES: readonly number[] = [0.5, 0.9, 0.95, 0.99, 0.999];

export interface PercentileSearch {
  readonly percentiles: LatencyPercentiles;
  /**
   * Largest relative uncertainty in t over the five: the bracket the search stopped at, widened by
   * the CDF's error bound over the density there (0 for a percentile that sits on an atom).
   */
  readonly relative: number;
  readonly evaluations: number;
}

/**
 * Smallest t with F(t) ≥ p, to `tol` relative: Newton steps on −ln(1 − F) (F is increasing, so
 * they keep a bracket [lo, hi] with F(lo) < p ≤ F(hi)); bisection when a step leaves the bracket.
 * At a jump (an atom) it converges on the jump.
 */
export function quantile(law: ResponseTimeLaw, p: number, from: number, tol = 1e-9, seen = new Map<number, { F: number; f: number }>()): { t: number; relative: number; evaluations: number } {
  let evaluations = 0;
  // Points already evaluated (the closing checks, the previous percentile) are not evaluated again:
  // each one is a pass over the whole law.
  const at = (t: number): { F: number; f: number } => {
    let v = seen.get(t);
    if (!v) {
      evaluations++;
      seen.set(t, (v = { F: law.cdf(t), f: law.density(t) }));
    }
    return v;
  };
  let lo = from;
  let hi = Infinity;
  let t = from > 0 ? from : Math.max(law.mean, 1e-12);
  let v = at(t);
  if (v.F >= p) {
    hi = t;
    lo = from > 0 ? from : 0;
  } else lo = t;
  for (let it = 0; it < 200; it++) {
    if (Number.isFinite(hi) && hi - lo <= tol * hi) break;
    // Newton on −ln(1 − F), which is close to linear in a tail that falls like an exponential
    // (plain Newton from below crawls there: F is concave, its tangent undershoots).
    let next = v.f > 0 && v.F < 1 ? t + (Math.log1p(-v.F) - Math.log1p(-p)) * ((1 - v.F) / v.f) : NaN;
    // Converged to within the tolerance: one point just across the root closes the bracket
    // (stepping to the root itself again only lands on the same side). It is a few times Newton's
    // last step away (whose error is far smaller: quadratic), so the bracket, and with it the stated
    // accuracy, is as narrow as the convergence, not the tolerance.
    const step = Math.abs(next - t);
    if (step <= (tol * t) / 4) {
      const across = Math.min((tol * t) / 2, Math.max(4 * step, 32 * Number.EPSILON * t));
      next = v.F >= p ? t - across : t + across;
    }
    if (!Number.isFinite(hi)) {
      // no upper end yet: Newton's step, at most doubling
      if (!(next > t)) next = 2 * t;
      next = Math.min(next, 2 * t);
    } else if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    t = next;
    v = at(t);
    if (v.F >= p) hi = t;
    else lo = t;
    if (Math.abs(v.F - p) < 1e-15) {
      lo = hi = t;
      break;
    }
    if (!Number.isFinite(t)) throw new LimitError('latency', `no t with P(R ≤ t) ≥ ${p} (the computed law's mass stays below it)`);
  }
  if (!Number.isFinite(hi)) throw new LimitError('latency', `no t with P(R ≤ t) ≥ ${p} found within 200 steps`);
  // A jump inside the final bracket that reaches p is the percentile, exactly.
  if (law.atoms) {
    for (const a of law.atoms) {
      if (a > hi) break;
      if (a >= lo && a <= hi && at(a).F >= p) return { t: a, relative: 0, evaluations };
    }
  }
  const width = Math.min(1, (hi - lo) / hi);
  if (lo === hi) lo = hi * (1 - 1e-12);
  // On a jump (an atom) that straddles p by more than the error, t is exact up to the bracket;
  // elsewhere the CDF's error moves t by at most error/density (to first order).
  const err = law.cdfError;
  const below = at(lo);
  const top = at(hi);
  if (below.F < p - err && top.F >= p + err) return { t: hi, relative: width, evaluations };
  return { t: hi, relative: Math.max(width, top.f > 0 ? err / (top.f * hi) : 1), evaluations };
}

export function percentilesOf(law: ResponseTimeLaw, tol = 1e-9): PercentileSearch {
  const out = {} as Record<keyof LatencyPercentiles, number>;
  let relative = 0;
  let evaluations = 0;
  let from = 0;
  const seen = new Map<number, { F: number; f: number }>();
  for (let q = 0; q < PERCENTILE_LEVELS.length; q++) {
    const r = quantile(law, PERCENTILE_PROBABILITIES[q], from, tol, seen);
    out[PERCENTILE_LEVELS[q]] = r.t;
    relative = Math.max(relative, r.relative);
    evaluations += r.evaluations;
    from = r.t;
  }
  return { percentiles: out, relative, evaluations };
}
