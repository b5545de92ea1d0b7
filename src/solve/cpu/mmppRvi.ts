import type { CompiledMmppModel } from '../../model/mmpp/compile.js';
import { boundsConverged, gapBounds } from '../../policy/greedy.js';
import { mmppBellmanStep } from '../../policy/mmpp/greedy.js';
import type { SolveOptions, SolverOutput } from '../types.js';
import { Yielder } from '../yield.js';
import { DEFAULT_RVI_MAX_ITERATIONS } from './rvi.js';

/**
 * Relative value iteration on the transformed (s, j) MDP, in f64, with the Odoni bounds
 * m_n ≤ g* ≤ M_n of every sweep (spec §3 with the state of §7). The reference state is
 * (0, 0). It is the reference the faster MMPP policy iteration is checked against.
 */
export async function mmppRelativeValueIteration(model: CompiledMmppModel, opts: SolveOptions): Promise<SolverOutput> {
  const n = (model.S + 1) * model.M;
  const h = new Float64Array(n);
  const warm = opts.warmStart?.values;
  if (warm && warm.length >= n) h.set(warm.subarray(0, n));
  const base = h[0];
  for (let x = 0; x < n; x++) h[x] -= base;
  const gap = new Float64Array(n);
  const policy = new Int32Array(n);
  const maxIterations = opts.maxIterations > 0 ? opts.maxIterations : DEFAULT_RVI_MAX_ITERATIONS;
  const every = opts.progressEvery ?? 100;
  const yielder = new Yielder(opts.signal);
  let lower = -Infinity;
  let upper = Infinity;
  let iteration = 0;
  let converged = false;
  while (iteration < maxIterations) {
    mmppBellmanStep(model, h, gap, policy);
    iteration++;
    ({ lower, upper } = gapBounds(gap));
    const g0 = gap[0];
    for (let x = 0; x < n; x++) h[x] += gap[x] - g0;
    converged = boundsConverged(lower, upper, opts.tolerance);
    if (opts.onProgress && (iteration % every === 0 || converged)) {
      opts.onProgress({ iteration, lower, upper, policy: policy.slice(), maxQueue: model.S });
    }
    if (converged) break;
    await yielder.check();
  }
  return {
    policy,
    values: h,
    lower,
    upper,
    iterations: iteration,
    stopReason: converged ? 'converged' : 'max-iterations',
    method: 'value-iteration',
    backend: 'cpu',
    adapter: '',
  };
}
