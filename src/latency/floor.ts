import type { ModelParams } from '../model/scenario.js';
import { isDeterministicLaw } from '../model/tilt.js';
import type { DetailedEvaluation } from '../policy/evaluate.js';
import { actionAt, type Policy } from '../policy/policy.js';

/**
 * An upper bound on P(R ≤ t) from the exact evaluation alone (no response-time law), for
 * deterministic service and Poisson arrivals: a cheap test that a policy misses a percentile
 * target, so planners skip its law (src/plan/percentileTarget.ts).
 *
 * Why it holds: batches are FIFO, so a request that finds k waiting ahead of it leaves no sooner
 * than the batch in service (residual ≥ 0) and then batches clearing those k and itself, each of
 * at most B requests; a batch covering n of them takes at least l*(n) = min_{n ≤ b ≤ B} l(b). So
 * R ≥ g(k + 1), g(n) = min over splits of n into parts ≤ B of Σ l*(part). By PASTA the arrival sees
 * the time-stationary state: idle with s waiting (k = s) for ν(s)/λ of time, or a batch of a
 * started at s' in service (k ≥ s' − a, arrivals during it only add) for ν(s')·l(a), over Σν·y.
 * Returns undefined where the bound does not apply (random service times, MMPP arrivals).
 */
export function responseCdfCeiling(p: ModelParams, policy: Policy, ev: DetailedEvaluation): ((t: number) => number) | undefined {
  if (p.arrivalProcess || !isDeterministicLaw(p.distribution, p.cv)) return undefined;
  const B = p.maxBatchSize;
  const l = p.meanService;
  const levels = ev.levels;
  const nu = ev.stationary;
  // Time share of each "k waiting ahead (at least)".
  const share = new Float64Array(levels);
  let Y = 0;
  for (let s = 0; s < levels; s++) {
    const a = actionAt(policy, s);
    const y = a === 0 ? 1 / p.arrivalRate : l[a];
    Y += nu[s] * y;
    share[a === 0 ? s : s - a] += nu[s] * y;
  }
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
