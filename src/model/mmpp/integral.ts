import type { ArrivalPmf } from '../arrivals.js';
import type { MmppProcess } from './process.js';

/**
 * E[∫₀^T A(t) dt | J(0) = j] for every starting phase j: the request-seconds that arrivals
 * during one service add to the latency cost (docs/model.md §7). For Poisson arrivals it is λ·E[T²]/2.
 *
 * Derivation, in the uniformized chain at rate θ (events at the epochs τ_1 < τ_2 < … of a
 * rate-θ Poisson process; at each event the phase moves by P̂ = I + Q/θ and an arrival happens
 * with probability λ_j/θ from the current phase j): event i+1 is an arrival with probability
 * (P̂^i λ)_j/θ, independently of when it happens, and contributes T − τ_{i+1} when τ_{i+1} ≤ T.
 * Since E[(T − τ_m)^+] = E[(N_T − m)^+]/θ with N_T ~ Poisson(θT) (mixed over T),
 *
 *   E[∫A | j] = θ⁻² · Σ_{i≥0} (P̂^i λ)_j · E[(N_T − i − 1)^+].
 *
 * Writing P̂^i λ = λ̄·1 + u_i with u_i = P̂^i (λ − λ̄·1) → 0, the λ̄ part sums to
 * λ̄·E[N(N−1)]/(2θ²) = λ̄·E[T²]/2 exactly; only the phase correction u_i is summed, so the result
 * for M = 1 (u = 0) is λ·m2/2 with no rounding at all, and all terms of the correction are
 * bounded by max|λ − λ̄|.
 *
 * `events` is the law of N_T (see countingMatrices), `secondMoment` is E[T²].
 */
export function arrivalIntegral(proc: MmppProcess, theta: number, events: ArrivalPmf, secondMoment: number): Float64Array {
  const M = proc.phases;
  const out = new Float64Array(M);
  const main = (proc.meanRate * secondMoment) / 2;
  out.fill(main);
  if (M === 1) return out;
  // G[m] = E[(N − m)^+] for m = 1..last, from the stored law by suffix sums of non-negative terms.
  const { offset, probs } = events;
  const last = offset + probs.length - 1;
  const G = new Float64Array(last + 2);
  let tail = 0; // P(N ≥ m+1)
  let g = 0; // E[(N − m)^+] = Σ_{l ≥ m+1} P(N ≥ l)
  for (let m = last; m >= 1; m--) {
    const i = m + 1 - offset;
    if (i >= 0 && i < probs.length) tail += probs[i];
    else if (i < 0) tail = 1;
    g += tail;
    G[m] = g;
  }
  const Q = proc.generator;
  let u = new Float64Array(M);
  let v = new Float64Array(M);
  for (let j = 0; j < M; j++) u[j] = proc.rates[j] - proc.meanRate;
  const corr = new Float64Array(M);
  for (let i = 0; i + 1 <= last; i++) {
    const gi = G[i + 1];
    for (let j = 0; j < M; j++) corr[j] += u[j] * gi;
    // u ← P̂u = u + Q·u/θ
    for (let j = 0; j < M; j++) {
      let acc = 0;
      for (let l = 0; l < M; l++) if (l !== j) acc += Q[j * M + l] * (u[l] - u[j]);
      v[j] = u[j] + acc / theta;
    }
    [u, v] = [v, u];
  }
  for (let j = 0; j < M; j++) out[j] = main + corr[j] / (theta * theta);
  return out;
}
