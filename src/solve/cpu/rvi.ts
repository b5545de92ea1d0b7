import type { CompiledModel } from '../../model/compile.js';
import { bellmanStep, boundsConverged, gapBounds } from '../../policy/greedy.js';
import type { Solver, SolveOptions, SolverOutput } from '../types.js';
import { Yielder } from '../yield.js';

export const DEFAULT_RVI_MAX_ITERATIONS = 1_000_000;

/**
 * Textbook relative value iteration on the transformed MDP (docs/model.md §3), in f64, over
 * the flat (queue, phase) states with reference state (0, 0):
 *   V_{n+1} = T h_n,  h_{n+1} = V_{n+1} − V_{n+1}(0),  m_n ≤ g* ≤ M_n (Odoni).
 * It is the reference every faster method is checked and benchmarked against.
 */
export async function relativeValueIteration(model: CompiledModel, opts: SolveOptions): Promise<SolverOutput> {
  const n = (model.S + 1) * model.M;
  const h = new Float64Array(n);
  const warm = opts.warmStart?.values;
  if (warm && warm.length >= n) h.set(warm.subarray(0, n));
  const base = h[0];
  for (let s = 0; s < n; s++) h[s] -= base;
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
    bellmanStep(model, h, gap, policy, undefined, undefined, opts.signal);
    iteration++;
    ({ lower, upper } = gapBounds(gap));
    const g0 = gap[0];
    for (let s = 0; s < n; s++) h[s] += gap[s] - g0;
    converged = boundsConverged(lower, upper, opts.tolerance);
    if (opts.onProgress && (iteration % every === 0 || converged)) {
      opts.onProgress({ iteration, lower, upper, policy: policy.slice(), maxQueue: model.S });
    }
    if (converged) break;
    if ((iteration & 15) === 0) await yielder.check();
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

export const cpuValueIteration: Solver = { backend: 'cpu', solve: relativeValueIteration };
