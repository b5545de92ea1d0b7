import type { CompiledMmppModel } from '../../model/mmpp/compile.js';
import { boundsConverged, gapBounds } from '../../policy/greedy.js';
import { mmppBellmanStep } from '../../policy/mmpp/greedy.js';
import { evaluateOnMmppModel } from '../../policy/mmpp/modelChain.js';
import type { SolveOptions, SolverOutput } from '../types.js';
import { Yielder } from '../yield.js';
import { mmppRelativeValueIteration } from './mmppRvi.js';
import { DEFAULT_PI_MAX_ITERATIONS, policyIterationResult, finishStablePolicy, policyHash, sameActions } from './pi.js';

/**
 * Policy iteration on the (s, j) model: evaluate each policy exactly on the banded chain,
 * improve with one Bellman step on its relative values, and certify with the Odoni bounds of
 * that step — the same certificate as RVI. When rounding keeps the bounds from closing while
 * the policy no longer changes, it finishes with rounds of RVI from the last values
 * (fallbackSweeps); with thousands of levels the relative values carry rounding noise that no
 * number of sweeps removes, and the solve ends with stopReason 'precision-limit' and the
 * (still valid) interval it reached, as the Poisson policy iteration does.
 */
export async function mmppPolicyIteration(model: CompiledMmppModel, opts: SolveOptions): Promise<SolverOutput> {
  const { S, B, M } = model;
  const n = (S + 1) * M;
  let policy = new Int32Array(n);
  const gap = new Float64Array(n);
  const warm = opts.warmStart;
  if (warm?.policy && warm.policy.length >= n) {
    policy.set(warm.policy.subarray(0, n));
  } else if (warm?.values && warm.values.length >= n) {
    mmppBellmanStep(model, warm.values.subarray(0, n), gap, policy);
  } else {
    for (let x = M; x < n; x++) policy[x] = Math.min(Math.floor(x / M), B);
  }
  // Waiting at S is not allowed (§4).
  for (let j = 0; j < M; j++) policy[S * M + j] = Math.max(policy[S * M + j], Math.min(S, B));
  let next = new Int32Array(n);
  const maxIterations = opts.maxIterations > 0 ? opts.maxIterations : DEFAULT_PI_MAX_ITERATIONS;
  const yielder = new Yielder(opts.signal);
  let values: Float64Array = new Float64Array(n);
  let lower = -Infinity;
  let upper = Infinity;
  let iteration = 0;
  let ref: number | undefined;
  const seen = new Set<number>();
  let lastGain = Infinity;
  while (iteration < maxIterations) {
    await yielder.check();
    const ev = evaluateOnMmppModel(model, policy, ref);
    ref = ev.mode;
    // Policy iteration lowers g at every step: a rise or a revisited policy means the
    // evaluations lost their digits (the tail extrapolation near S can do that), and further
    // steps would wander to the cap. Finish as for a stable policy, by RVI from these values.
    const hash = policyHash(policy);
    const lost = iteration > 0 && (ev.gain > lastGain + 1e-9 * Math.abs(lastGain) || seen.has(hash));
    seen.add(hash);
    lastGain = ev.gain;
    values = ev.values;
    for (let x = 0; x < n; x++) values[x] /= model.tau; // h̃ = h/τ
    await yielder.check();
    mmppBellmanStep(model, values, gap, next, policy);
    iteration++;
    ({ lower, upper } = gapBounds(gap));
    const converged = boundsConverged(lower, upper, opts.tolerance);
    const stable = sameActions(policy, next) || lost;
    opts.onProgress?.({ iteration, lower, upper, policy: next.slice(), maxQueue: S });
    if (converged) return policyIterationResult(next, values, lower, upper, iteration, 'converged');
    if (stable) {
      const sweep = (maxIterations: number, from: Float64Array) => mmppRelativeValueIteration(model, { ...opts, maxIterations, warmStart: { values: from } });
      return finishStablePolicy(sweep, opts, { policy: next, values, lower, upper, iteration });
    }
    [policy, next] = [next, policy];
  }
  return policyIterationResult(policy, values, lower, upper, iteration, 'max-iterations');
}
