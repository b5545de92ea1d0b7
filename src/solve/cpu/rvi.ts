import type { CompiledModel } from '../../model/compile.js';
import { boundsConverged, gapBounds } from '../../policy/greedy.js';
import { singleClassOperator, type BellmanOperator } from '../operator.js';
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
  return valueIterate(singleClassOperator(model), opts);
}

/**
 * The one RVI loop, for any model kind that supplies a BellmanOperator (the single-class model,
 * the multi-class joint model of §10): V_{n+1} = T h_n, h_{n+1} = V_{n+1} − V_{n+1}(ref), and
 * the Odoni bounds min/max of the gap certify g* at every step.
 */
export async function valueIterate(op: BellmanOperator, opts: SolveOptions): Promise<SolverOutput> {
  const n = op.states;
  const ref = op.referenceState;
  const h = new Float64Array(n);
  const warm = opts.warmStart?.values;
  if (warm && warm.length >= n) h.set(warm.subarray(0, n));
  const base = h[ref];
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
    op.step(h, gap, policy, opts.signal);
    iteration++;
    ({ lower, upper } = gapBounds(gap));
    const g0 = gap[ref];
    for (let s = 0; s < n; s++) h[s] += gap[s] - g0;
    converged = boundsConverged(lower, upper, opts.tolerance);
    if (opts.onProgress && (iteration % every === 0 || converged)) {
      opts.onProgress({ iteration, lower, upper, policy: policy.slice(), maxQueue: op.maxQueue });
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
