/**
 * The policy-gradient update shared by the learned agents (the router, trainRouter.ts, and the
 * joint batching agent of src/classes/learn): a linear-softmax policy whose action a at sample t
 * has the feature row φ_t(a) and the score θ_k·φ_t(a), θ_k one block of a flat parameter vector.
 * REINFORCE takes one step along Σ_t A_t·∇ log π(a_t); PPO takes `epochs` steps of the clipped
 * surrogate (no gradient once the ratio π/π_old has passed 1 ± ε in the advantage's direction).
 */
import type { Adam } from './adam.js';
import { softmax } from './linearRouter.js';

export type Algo = 'reinforce' | 'ppo';

/** One batch of experience: sample t's rows are rows(t)·F numbers at phi(t), its block block(t). */
export interface Experience {
  readonly used: readonly number[];
  phi(t: number): Float64Array;
  rows(t: number): number;
  block(t: number): number;
  readonly act: ArrayLike<number>;
  readonly oldProb: ArrayLike<number>;
  /** Advantages (already normalised), by sample. */
  readonly adv: ArrayLike<number>;
}

/** Advantages to mean 0 and standard deviation 1 over the used samples, in place. */
export function normalizeAdvantages(adv: Float64Array, used: readonly number[]): void {
  let m = 0;
  let s2 = 0;
  for (const t of used) m += adv[t];
  m /= used.length;
  for (const t of used) s2 += (adv[t] - m) ** 2;
  const sd = Math.sqrt(s2 / used.length) + 1e-8;
  for (const t of used) adv[t] = (adv[t] - m) / sd;
}

/** The update of θ (blocks of F at k·F) from one batch; returns the gradient steps taken. */
export function policyGradientUpdate(theta: Float64Array, F: number, x: Experience, adam: Adam, o: { algo: Algo; epochs?: number; clip?: number }): number {
  const epochs = o.algo === 'ppo' ? (o.epochs ?? 4) : 1;
  const clip = o.clip ?? 0.2;
  let maxRows = 1;
  for (const t of x.used) maxRows = Math.max(maxRows, x.rows(t));
  const probs = new Float64Array(maxRows);
  const grad = new Float64Array(theta.length);
  for (let e = 0; e < epochs; e++) {
    grad.fill(0);
    for (const t of x.used) {
      const k = x.block(t);
      const N = x.rows(t);
      const phi = x.phi(t);
      softmax(theta.subarray(k * F, (k + 1) * F), phi, N, probs);
      const a = x.act[t];
      let w = x.adv[t];
      if (o.algo === 'ppo') {
        const ratio = probs[a] / x.oldProb[t];
        if ((w > 0 && ratio > 1 + clip) || (w < 0 && ratio < 1 - clip)) continue;
        w *= ratio;
      }
      // ∇θ log π(a) = φ(a) − Σ_a' π(a') φ(a')
      for (let i = 0; i < F; i++) {
        let mean = 0;
        for (let r = 0; r < N; r++) mean += probs[r] * phi[r * F + i];
        grad[k * F + i] += w * (phi[a * F + i] - mean);
      }
    }
    for (let i = 0; i < grad.length; i++) grad[i] /= x.used.length;
    adam.ascend(theta, grad);
  }
  return epochs;
}
