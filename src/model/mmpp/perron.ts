/**
 * The Perron root of an MMPP's tilted generator, σ(θ) = the largest real eigenvalue of
 * Q + (e^θ − 1)·Λ (Λ = diag(λ_j)): the growth rate of E[e^(θ·N(t))] ~ e^(σ(θ)·t) of its arrival
 * count N(t). For one phase it is λ·(e^θ − 1). The queue's tail decay (queueEstimate.ts) solves
 * E[e^(σ(θ)·T_B)] = e^(θ·B) with it: over a batch of B, whatever its law, the phase process and
 * the counts share the eigenvector of the tilted generator, so E[e^(X·T)] has Perron root E[e^(σ·T)].
 */

/**
 * Whether s·I − X is a nonsingular M-matrix (X Metzler: off-diagonals ≥ 0), i.e. s exceeds X's
 * Perron root: Gaussian elimination without pivoting keeps every pivot positive exactly then.
 */
function above(X: Float64Array, M: number, s: number, work: Float64Array): boolean {
  for (let i = 0; i < M * M; i++) work[i] = -X[i];
  for (let i = 0; i < M; i++) work[i * M + i] += s;
  for (let k = 0; k < M; k++) {
    const d = work[k * M + k];
    if (!(d > 0)) return false;
    for (let i = k + 1; i < M; i++) {
      const f = work[i * M + k] / d;
      if (f === 0) continue;
      for (let j = k + 1; j < M; j++) work[i * M + j] -= f * work[k * M + j];
    }
  }
  return true;
}

/**
 * σ(θ) for the generator Q (row-major M×M, rows summing to 0, irreducible) and the rates λ_j, to
 * ~1e-15 relative by bisection between the tilted matrix's smallest and largest row sums (which
 * bound the Perron root of a Metzler matrix). θ ≥ 0.
 */
export function tiltedPerronRoot(generator: ArrayLike<number>, rates: ArrayLike<number>, theta: number): number {
  const M = rates.length;
  const tilt = Math.expm1(theta);
  if (M === 1) return rates[0] * tilt;
  const X = new Float64Array(M * M);
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < M; j++) X[i * M + j] = generator[i * M + j];
    X[i * M + i] += rates[i] * tilt;
    // Row i sums to λ_i·(e^θ − 1): Q's rows sum to 0.
    lo = Math.min(lo, rates[i] * tilt);
    hi = Math.max(hi, rates[i] * tilt);
  }
  const work = new Float64Array(M * M);
  for (let it = 0; it < 200 && hi - lo > 1e-15 * Math.max(Math.abs(hi), Math.abs(lo)); it++) {
    const mid = (lo + hi) / 2;
    if (mid <= lo || mid >= hi) break;
    if (above(X, M, mid, work)) hi = mid;
    else lo = mid;
  }
  return (lo + hi) / 2;
}
