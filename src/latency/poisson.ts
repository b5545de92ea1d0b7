const logFact: number[] = [0];
/** ln n!: summed and cached up to 1000, Stirling's series past it (error < 1e-16 relative there). */
export function logFactorial(n: number): number {
  if (n > 1000) {
    const r = 1 / n;
    return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + r / 12 - (r * r * r) / 360 + (r * r * r * r * r) / 1260;
  }
  while (logFact.length <= n) logFact.push(logFact[logFact.length - 1] + Math.log(logFact.length));
  return logFact[n];
}

/**
 * Poisson probabilities e^(−μ)μ^i/i! for i = 0..out.length − 1, from the mode outward (a plain
 * recurrence from e^(−μ) underflows once μ passes ~745).
 */
export function poissonRow(mu: number, out: Float64Array): Float64Array {
  const n = out.length;
  out.fill(0);
  if (n === 0) return out;
  if (!(mu > 0)) {
    out[0] = 1;
    return out;
  }
  const mode = Math.min(n - 1, Math.floor(mu));
  const at = Math.exp(-mu + mode * Math.log(mu) - logFactorial(mode));
  out[mode] = at;
  let v = at;
  for (let i = mode + 1; i < n && v > 0; i++) out[i] = v = (v * mu) / i;
  v = at;
  for (let i = mode - 1; i >= 0 && v > 0; i--) out[i] = v = (v * (i + 1)) / mu;
  return out;
}

/**
 * P(Erlang(n, λ) ≤ u) = P(Poisson(x) ≥ n) with x = λu: 1 for n = 0 (an atom), 0 for u ≤ 0 and n ≥ 1.
 * Summed over the smaller side of the Poisson law so that neither side loses digits to cancellation.
 */
export function erlangCdf(n: number, x: number): number {
  if (n <= 0) return 1;
  if (!(x > 0)) return 0;
  if (n === 1) return -Math.expm1(-x);
  return poissonTail(n, x, Math.exp(-x + (n - 1) * Math.log(x) - logFactorial(n - 1)));
}

/**
 * P(Poisson(x) ≥ n) for n ≥ 1 from pm = Pois(n − 1; x): while n − 1 < x the lower side (summed
 * down from n − 1) is the small one, else the upper side (summed up from n); terms fall both ways.
 */
function poissonTail(n: number, x: number, pm: number): number {
  if (n - 1 < x) {
    let term = pm;
    let sum = 0;
    for (let i = n - 1; i >= 0; i--) {
      sum += term;
      if (term < sum * 1e-17) break;
      term = (term * i) / x;
    }
    return 1 - sum;
  }
  let term = (pm * x) / n;
  let sum = 0;
  for (let i = n; ; i++) {
    sum += term;
    term = (term * x) / (i + 1);
    // ≤, not <: where Pois(n − 1; x) underflows to 0 both are 0, and the tail is below every double.
    if (term <= sum * 1e-17) break;
  }
  return sum;
}

/**
 * CDF and density of Erlang(n, λ) at u > 0 from one Poisson term, Pois(n − 1; λu): the density is
 * λ times it, the CDF the tail of poissonTail from it.
 */
export function erlangBoth(n: number, lambda: number, u: number, out: Float64Array): void {
  const x = lambda * u;
  if (!(x > 0)) {
    out[0] = 0;
    out[1] = n === 1 ? lambda : 0;
    return;
  }
  // Pois(n − 1; x)
  const pm = n === 1 ? Math.exp(-x) : Math.exp(-x + (n - 1) * Math.log(x) - logFactorial(n - 1));
  out[1] = lambda * pm;
  out[0] = poissonTail(n, x, pm);
}

/** Density of Erlang(n, λ) at u: λ·Pois(n − 1; λu). */
export function erlangPdf(n: number, lambda: number, u: number): number {
  const x = lambda * u;
  if (n === 1) return lambda * Math.exp(-x);
  return lambda * Math.exp(-x + (n - 1) * Math.log(x) - logFactorial(n - 1));
}

/** Largest n for erlangFromExp: its cost is n multiplications, against an exp, a log and a tail sum. */
export const SHORT_ERLANG = 64;

/**
 * P(Erlang(n) ≤ x/λ) and Pois(n − 1; x) (the density over λ) from ex = e^(−x), by the recurrence
 * of the Poisson terms up to n − 1 (needs ex > 0: x < ~700). The CDF is 1 − Σ_{r<n} Pois(r; x),
 * whose absolute error is a few n·ε: what a sum of CDF contributions needs (not their relative
 * accuracy deep in the lower tail, which poissonTail keeps).
 */
export function erlangFromExp(n: number, x: number, ex: number, out: Float64Array): void {
  let term = ex;
  let sum = 0;
  for (let r = 1; r < n; r++) {
    sum += term;
    term = (term * x) / r;
  }
  out[0] = 1 - (sum + term);
  out[1] = term;
}
