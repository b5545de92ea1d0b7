import type { CompiledModel } from '../../model/compile.js';
import { boundsConverged, gapBounds } from '../../policy/greedy.js';
import { singleClassOperator, type BellmanOperator } from '../operator.js';
import type { Solver, SolveOptions, SolverOutput } from '../types.js';
import { Yielder } from '../yield.js';

export const DEFAULT_RVI_MAX_ITERATIONS = 1_000_000;

/**
 * The divergence guard (opt-in, `stopOnDivergence`): the interval M_n − m_n has grown to this many
 * times the narrowest one of the run. On a genuine MDP (every row stochastic) the Odoni bounds are
 * monotone, so the interval never widens; the quadratic tail rows are signed and can widen it a
 * little (≤ 1.13× on the multi-class cases of test/classes), but an operator that amplifies some
 * direction of h (docs/model.md §10) widens it geometrically without end.
 */
export const RVI_DIVERGENCE_GROWTH = 1e3;
/** …and the interval is also this wide relative to |m_n| + |M_n|, so rounding noise near convergence never counts. */
const RVI_DIVERGENCE_RELATIVE = 1e-6;

/** Why a guarded run stopped early: its interval widened without end (or left the finite numbers). */
export interface RviDivergence {
  readonly iteration: number;
  /** The narrowest interval M − m of the run, and the one it stopped at. */
  readonly narrowest: number;
  readonly width: number;
}

export interface RviOutput extends SolverOutput {
  /** Set when `stopOnDivergence` stopped the run: its bounds, values and policy are then not a solution. */
  readonly diverged?: RviDivergence;
}

export interface RviGuard {
  /** Stop (and report `diverged`) when the interval widens without end; off for the single-class callers, whose tail rows are checked elsewhere (§3.5, §3.6). */
  readonly stopOnDivergence?: boolean;
}

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
export async function valueIterate(op: BellmanOperator, opts: SolveOptions, guard: RviGuard = {}): Promise<RviOutput> {
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
  let narrowest = Infinity;
  let diverged: RviDivergence | undefined;
  while (iteration < maxIterations) {
    op.step(h, gap, policy, opts.signal);
    iteration++;
    ({ lower, upper } = gapBounds(gap));
    const g0 = gap[ref];
    let total = 0;
    for (let s = 0; s < n; s++) {
      h[s] += gap[s] - g0;
      total += gap[s];
    }
    // gapBounds skips NaN, and an all-NaN gap gives (∞, −∞), which boundsConverged would accept.
    const finite = Number.isFinite(total) && Number.isFinite(lower) && Number.isFinite(upper);
    converged = finite && boundsConverged(lower, upper, opts.tolerance);
    if (guard.stopOnDivergence && !converged) {
      const width = upper - lower;
      narrowest = Math.min(narrowest, width);
      if (!finite || (width > RVI_DIVERGENCE_GROWTH * narrowest && width > RVI_DIVERGENCE_RELATIVE * (Math.abs(lower) + Math.abs(upper)))) {
        diverged = { iteration, narrowest, width };
        break;
      }
    }
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
    ...(diverged ? { diverged } : {}),
  };
}

export const cpuValueIteration: Solver = { backend: 'cpu', solve: relativeValueIteration };
