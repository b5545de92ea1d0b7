import { expmMetzler } from './expm.js';

/** Moments of the number of arrivals N(t) in a window of length t, stationary start. */
export interface CountMoments {
  readonly mean: number;
  readonly variance: number;
  /** Third central moment E[(N − EN)³]. */
  readonly third: number;
}

/**
 * Count moments of an MMPP (rates λ, generator Q, stationary π) over a window of length t.
 *
 * The factorial moments are E[N(N−1)…(N−r+1)] = r!·π·[e^{Gt}]_{0,r}·1 with G the block upper
 * bidiagonal matrix with Q on the diagonal and Λ = diag(λ) above it (blocks 0..3): the
 * (0, r) block of e^{Gt} is the r-fold iterated integral of e^{Qu}Λ, i.e. the r-th derivative
 * of the generating function π·e^{(Q + (z−1)Λ)t}·1 at z = 1, divided by r!.
 */
export function mmppCountMoments(rates: ArrayLike<number>, Q: ArrayLike<number>, pi: ArrayLike<number>, t: number): CountMoments {
  const M = rates.length;
  const n = 4 * M;
  const G = new Float64Array(n * n);
  for (let blk = 0; blk < 4; blk++) {
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < M; j++) G[(blk * M + i) * n + blk * M + j] = Q[i * M + j];
      if (blk < 3) G[(blk * M + i) * n + (blk + 1) * M + i] = rates[i];
    }
  }
  const E = expmMetzler(G, n, t);
  const f = [0, 0, 0, 0];
  for (let r = 1; r <= 3; r++) {
    let acc = 0;
    for (let i = 0; i < M; i++) for (let j = 0; j < M; j++) acc += pi[i] * E[i * n + r * M + j];
    f[r] = acc * (r === 1 ? 1 : r === 2 ? 2 : 6);
  }
  const m1 = f[1];
  const m2 = f[2] + f[1];
  const m3 = f[3] + 3 * f[2] + f[1];
  return { mean: m1, variance: m2 - m1 * m1, third: m3 - 3 * m1 * m2 + 2 * m1 * m1 * m1 };
}

/**
 * Index of dispersion of counts of a two-phase MMPP in closed form:
 * IDC(t) = 1 + c·(1 − (1 − e^{−ρt})/(ρt)), with ρ = r₁ + r₂ the decay rate and
 * c = 2(λ₁ − λ₂)²·r₁r₂/(ρ³·λ̄) the excess dispersion at long time scales.
 */
export function idcTwoPhase(c: number, rho: number, t: number): number {
  const x = rho * t;
  const shape = x < 1e-6 ? x / 2 : 1 - -Math.expm1(-x) / x;
  return 1 + c * shape;
}
