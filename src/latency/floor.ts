import type { ModelParams } from '../model/scenario.js';
import { isDeterministicLaw } from '../model/tilt.js';
import type { DetailedEvaluation } from '../policy/evaluate.js';
import { actionAt, type Policy } from '../policy/policy.js';
import { isExponentialLaw } from './distribution.js';
import { erlangCdf } from './poisson.js';

/**
 * An upper bound on P(R ≤ t) from the exact evaluation alone (no response-time law), for
 * deterministic or exponential service and Poisson arrivals: a cheap test that a policy misses a
 * percentile target, so planners skip its law (src/plan/percentileTarget.ts).
 *
 * Why it holds: batches are FIFO, so a request that finds k waiting ahead of it leaves no sooner
 * than the batch in service (residual ≥ 0) and then batches clearing those k and itself, each of
 * at most B requests. By PASTA the arrival sees the time-stationary state: idle with s waiting
 * (k = s) for ν(s)/λ of time, or a batch of a started at s' in service (k ≥ s' − a, arrivals during
 * it only add) for ν(s')·l(a), over Σν·y.
 * - Deterministic service: a batch covering n of them takes at least l*(n) = min_{n ≤ b ≤ B} l(b),
 *   so R ≥ g(k + 1), g(n) = min over splits of n into parts ≤ B of Σ l*(part).
 * - Exponential service: at least n_k = ⌈(k + 1)/B⌉ batches, the i-th lasting l(b_i)·E_i with E_i
 *   iid Exp(1) drawn as it starts (independent of the sizes chosen before it), so R ≥ l_min·ΣE_i
 *   over n_k of them: P(R ≤ t | k) ≤ P(Erlang(n_k) ≤ t/l_min), l_min = min_b l(b).
 * Returns undefined where no bound applies (gamma service with cv ≠ 1, MMPP arrivals).
 */
export function responseCdfCeiling(p: ModelParams, policy: Policy, ev: DetailedEvaluation): ((t: number) => number) | undefined {
  if (p.arrivalProcess) return undefined;
  const deterministic = isDeterministicLaw(p.distribution, p.cv);
  if (!deterministic && !isExponentialLaw(p)) return undefined;
  const { share, Y } = aheadShares(p, policy, ev);
  return deterministic ? deterministicCeiling(p, share, Y) : exponentialCeiling(p, share, Y);
}

/** Time share of each "k waiting ahead (at least)", and their total Y = Σν·y. */
function aheadShares(p: ModelParams, policy: Policy, ev: DetailedEvaluation): { share: Float64Array; Y: number } {
  const l = p.meanService;
  const nu = ev.stationary;
  const share = new Float64Array(ev.levels);
  let Y = 0;
  for (let s = 0; s < ev.levels; s++) {
    const a = actionAt(policy, s);
    const y = a === 0 ? 1 / p.arrivalRate : l[a];
    Y += nu[s] * y;
    share[a === 0 ? s : s - a] += nu[s] * y;
  }
  return { share, Y };
}

function deterministicCeiling(p: ModelParams, share: Float64Array, Y: number): (t: number) => number {
  const B = p.maxBatchSize;
  const l = p.meanService;
  const levels = share.length;
  const least = new Float64Array(B + 2).fill(Infinity);
  for (let b = B; b >= 1; b--) least[b] = Math.min(l[b], least[b + 1]);
  const g = new Float64Array(levels + 1);
  for (let n = 1; n <= levels; n++) {
    let best = Infinity;
    for (let b = 1; b <= Math.min(n, B); b++) best = Math.min(best, g[n - b] + least[b]);
    g[n] = best;
  }
  return (t: number): number => {
    let F = 0;
    for (let k = 0; k < levels; k++) if (g[k + 1] <= t) F += share[k];
    return F / Y;
  };
}

function exponentialCeiling(p: ModelParams, share: Float64Array, Y: number): (t: number) => number {
  const B = p.maxBatchSize;
  let lMin = Infinity;
  for (let b = 1; b <= B; b++) lMin = Math.min(lMin, p.meanService[b]);
  // The shares gathered by batch count n_k = ⌈(k + 1)/B⌉.
  const byBatches = new Float64Array(Math.ceil(share.length / B) + 1);
  for (let k = 0; k < share.length; k++) byBatches[Math.ceil((k + 1) / B)] += share[k];
  return (t: number): number => {
    let F = 0;
    for (let n = 1; n < byBatches.length; n++) if (byBatches[n] > 0) F += byBatches[n] * erlangCdf(n, t / lMin);
    return Math.min(1, F / Y);
  };
}
