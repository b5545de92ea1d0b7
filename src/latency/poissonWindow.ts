/**
 * Σ_n Pois(n; x)·g(n) for the uniformized survival (docs/model.md §9), over the window of n outside
 * which the Poisson mass is below `eps`. The mode's weight is taken in log space (ln n! by Stirling
 * with three corrections, exact sums for small n), and the others by the ratio recurrences
 * p(n+1) = p(n)·x/(n+1), p(n−1) = p(n)·n/x walking outwards, so nothing under- or overflows at any x.
 * Each walk stops where a geometric series bounds the rest of its side below eps/2: right of the
 * mode the ratios x/(n+1) only fall, left of it n/x only falls.
 */
export interface PoissonWindow {
  readonly lo: number;
  readonly weights: Float64Array;
}

export function poissonWindow(x: number, eps: number): PoissonWindow {
  if (x <= 0) return { lo: 0, weights: Float64Array.of(1) };
  const mode = Math.floor(x);
  const pMode = Math.exp(-x + mode * Math.log(x) - logFactorial(mode));
  const right: number[] = [];
  let p = pMode;
  for (let n = mode; ; n++) {
    const r = x / (n + 2);
    const pn1 = (p * x) / (n + 1);
    // After n + 1 the tail is ≤ p(n+1)·(1 + r + r² + …).
    if (r < 1 && pn1 / (1 - r) < eps / 2) break;
    right.push(pn1);
    p = pn1;
  }
  const left: number[] = [];
  p = pMode;
  for (let n = mode; n > 0; n--) {
    const r = (n - 1) / x;
    const pn1 = (p * n) / x;
    if (pn1 / (1 - r) < eps / 2) break;
    left.push(pn1);
    p = pn1;
  }
  const weights = new Float64Array(left.length + 1 + right.length);
  for (let i = 0; i < left.length; i++) weights[left.length - 1 - i] = left[i];
  weights[left.length] = pMode;
  weights.set(right, left.length + 1);
  return { lo: mode - left.length, weights };
}

export function logFactorial(n: number): number {
  if (n < 32) {
    let s = 0;
    for (let i = 2; i <= n; i++) s += Math.log(i);
    return s;
  }
  const inv = 1 / n;
  const inv2 = inv * inv;
  return n * Math.log(n) - n + 0.5 * Math.log(2 * Math.PI * n) + inv * (1 / 12 - inv2 * (1 / 360 - inv2 / 1260));
}
