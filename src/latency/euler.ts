/**
 * Abate–Whitt's Euler method (Abate & Whitt 1995, "Numerical inversion of Laplace transforms of
 * probability distributions"): f(t) from its transform f̂ at θ_k = (A + 2πik)/(2t), k = 0..n+m,
 *   f(t) ≈ Σ_k coef_k·Re f̂(θ_k),
 * the Bromwich integral as a trapezoid sum (its discretisation error is the aliased tail
 * Σ_j e^(−jA) f((2j+1)t), at most e^(−A)/(1 − e^(−A)) for 0 ≤ f ≤ 1) with the last m partial sums
 * averaged by binomial (Euler) weights to accelerate the alternating series.
 */
export interface EulerRule {
  readonly A: number;
  readonly n: number;
  readonly m: number;
  /** Coefficients per term (before the e^(A/2)/t factor). */
  readonly coef: Float64Array;
  /** The same sum with one term fewer in the head (n − 1): its difference estimates the truncation error. */
  readonly coefShort: Float64Array;
}

export function eulerRule(A = 18.4, n = 16, m = 12): EulerRule {
  const make = (head: number): Float64Array => {
    const terms = n + m + 1;
    const c = new Float64Array(terms);
    // binomial tail P(Bin(m, ½) ≥ j)
    const binom = new Float64Array(m + 1);
    binom[0] = 1;
    for (let j = 1; j <= m; j++) binom[j] = (binom[j - 1] * (m - j + 1)) / j;
    for (let j = 0; j <= m; j++) binom[j] /= 2 ** m;
    for (let k = 0; k < terms; k++) {
      let e = 1;
      if (k > head) {
        e = 0;
        for (let j = k - head; j <= m; j++) e += binom[j];
      }
      if (k > head + m) e = 0;
      c[k] = (k === 0 ? 0.5 : k % 2 === 0 ? 1 : -1) * e;
    }
    return c;
  };
  return { A, n, m, coef: make(n), coefShort: make(n - 1) };
}

/** The nodes θ_k for time t (re, im). */
export function eulerNodes(rule: EulerRule, t: number): { re: Float64Array; im: Float64Array } {
  const terms = rule.coef.length;
  const re = new Float64Array(terms);
  const im = new Float64Array(terms);
  for (let k = 0; k < terms; k++) {
    re[k] = rule.A / (2 * t);
    im[k] = (Math.PI * k) / t;
  }
  return { re, im };
}

/** Σ coef_k·Re v_k times e^(A/2)/t, with the short sum for the error estimate. */
export function eulerSum(rule: EulerRule, t: number, valueRe: Float64Array): { value: number; short: number } {
  let a = 0;
  let b = 0;
  for (let k = 0; k < valueRe.length; k++) {
    a += rule.coef[k] * valueRe[k];
    b += rule.coefShort[k] * valueRe[k];
  }
  const scale = Math.exp(rule.A / 2) / t;
  return { value: a * scale, short: b * scale };
}
