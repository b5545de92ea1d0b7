import type { Distribution } from './scenario.js';
import { LimitError } from './errors.js';

/**
 * The law of K_b, the number of Poisson(λ) arrivals during one service time T_b.
 * `probs[i]` = P(K = offset + i). The mass cut from either tail (below 1e-15 each) is
 * kept: the lower remainder is added to the first atom, the upper remainder is an extra
 * last atom, so `probs` sums to 1 and nothing is silently dropped.
 */
export interface ArrivalPmf {
  readonly offset: number;
  readonly probs: Float64Array;
  /** E[K] = λ·l(b). */
  readonly mean: number;
  /** E[K²] = λ·l + λ²·m2. */
  readonly secondMoment: number;
}

/** Mass below which a tail is cut (and moved onto the boundary atom). */
export const TAIL_CUT = 1e-15;

/**
 * Ratio P(K = k+1) / P(K = k) of the mixed-Poisson law. For a gamma service time with
 * shape r = 1/cv² and scale θ = l·cv², K is negative binomial with q = λθ/(1+λθ):
 * ratio = q·(k+r)/(k+1). Deterministic is the r → ∞ limit (Poisson, ratio μ/(k+1)).
 */
type Ratio = (k: number) => number;

function lawRatio(dist: Distribution, mu: number, cv: number): { ratio: Ratio; mode: number; limit: number } {
  const nb = negativeBinomial(dist, mu, cv);
  if (!nb) return { ratio: (k) => mu / (k + 1), mode: Math.floor(mu), limit: 0 };
  const { shape: r, q } = nb;
  const mode = r > 1 ? Math.floor(((r - 1) * q) / (1 - q)) : 0;
  return { ratio: (k) => (q * (k + r)) / (k + 1), mode, limit: q };
}

/** The negative-binomial parameters of K under gamma service (exponential: shape 1, geometric). */
export interface NegativeBinomial {
  /** r = 1/cv². */
  readonly shape: number;
  /** q = λθ/(1+λθ). */
  readonly q: number;
  /** 1 − q, as 1/(1+λθ) (no cancellation when q is close to 1). */
  readonly complement: number;
}

/** K's negative-binomial law for mean μ = λ·l, or undefined when it is Poisson (deterministic service). */
export function negativeBinomial(dist: Distribution, mu: number, cv: number): NegativeBinomial | undefined {
  if (dist === 'DETERMINISTIC' || cv === 0) return undefined;
  const lt = mu * cv * cv; // λθ
  return { shape: 1 / (cv * cv), q: lt / (1 + lt), complement: 1 / (1 + lt) };
}

/**
 * Builds the pmf of K for mean μ = λ·l and service-time coefficient of variation cv.
 * Unnormalised terms start at 1 at the mode and follow the ratio recurrence outwards,
 * so nothing under- or overflows for μ up to 10⁴ and beyond; normalising by their sum
 * avoids any log-gamma evaluation.
 */
export function arrivalPmf(dist: Distribution, lambda: number, meanService: number, secondMoment: number, cv: number): ArrivalPmf {
  const mu = lambda * meanService;
  const { ratio, mode, limit } = lawRatio(dist, mu, cv);
  const up: number[] = [1];
  const down: number[] = [];
  // Upwards from the mode: stop when a geometric bound on the remaining mass is negligible.
  let t = 1;
  let sum = 1;
  let upperRest = 0;
  for (let k = mode; ; k++) {
    const rho = ratio(k);
    const next = t * rho;
    // Past the mode every later ratio is at most max(ρ, limit) (the ratio falls towards its
    // limit when shape ≥ 1 and rises towards it when shape < 1), so a geometric series with
    // that ratio bounds the rest of the tail.
    const sup = Math.max(rho, limit);
    const bound = (t * sup) / (1 - sup);
    if (sup < 1 && bound < TAIL_CUT * sum) {
      upperRest = bound;
      break;
    }
    t = next;
    up.push(t);
    sum += t;
    if (up.length > 50_000_000) throw new LimitError('serviceTime', `the arrival-count law during one batch (mean ${+mu.toPrecision(6)}) needs more than 50000000 terms`);
  }
  // Downwards from the mode.
  t = 1;
  let lowerRest = 0;
  for (let k = mode; k > 0; k--) {
    const back = 1 / ratio(k - 1); // P(k-1)/P(k)
    const prev = t * back;
    const bound = back < 1 ? (t * back) / (1 - back) : Infinity;
    if (bound < TAIL_CUT * sum) {
      lowerRest = bound;
      break;
    }
    t = prev;
    down.push(t);
    sum += t;
  }
  const offset = mode - down.length;
  const n = down.length + up.length + 1; // +1: the atom carrying the upper remainder
  const probs = new Float64Array(n);
  // The remainders are bounds, not exact masses; the total is normalised to 1 exactly.
  const total = sum + upperRest + lowerRest;
  for (let i = 0; i < down.length; i++) probs[down.length - 1 - i] = down[i] / total;
  for (let i = 0; i < up.length; i++) probs[down.length + i] = up[i] / total;
  probs[0] += lowerRest / total;
  probs[n - 1] = upperRest / total;
  return { offset, probs, mean: mu, secondMoment: mu + lambda * lambda * secondMoment };
}

/** Mean and second moment of a pmf as stored (for checks). */
export function pmfMoments(p: ArrivalPmf): { mass: number; mean: number; second: number } {
  let mass = 0;
  let mean = 0;
  let second = 0;
  for (let i = 0; i < p.probs.length; i++) {
    const k = p.offset + i;
    mass += p.probs[i];
    mean += k * p.probs[i];
    second += k * k * p.probs[i];
  }
  return { mass, mean, second };
}
