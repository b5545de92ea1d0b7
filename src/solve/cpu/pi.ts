import { startAction, type CompiledModel } from '../../model/compile.js';
import { LimitError } from '../../model/errors.js';
import { bellmanStep, boundsConverged, gapBounds, lookAheadAlongWaits } from '../../policy/greedy.js';
import { evaluateOnModel, type ModelEvaluation } from '../../policy/modelChain.js';
import type { Solver, SolveOptions, SolverOutput } from '../types.js';
import { Yielder } from '../yield.js';
import { relativeValueIteration } from './rvi.js';

export const DEFAULT_PI_MAX_ITERATIONS = 500;
/** RVI sweeps tried after a stable policy whose bounds rounding keeps apart. */
const FALLBACK_SWEEPS = 200;
/** Sweeps per round of those; a round that does not halve the interval ends them. */
const PROBE_SWEEPS = 20;
/** Relative decrease of g a lookahead candidate must show to be kept. */
const LOOKAHEAD_MARGIN = 1e-10;
/** Plain steps changing at most this many states call for the lookahead. */
const FEW_CHANGES = 3;
/** Relative rise of g between policy-iteration steps taken for lost digits. */
const RISE_MARGIN = 1e-9;

/**
 * Policy iteration with exact evaluation of each policy on the banded chain of the
 * (queue, phase) model (O(S·B·pmf·M²) per step), then the Odoni bounds of one Bellman step
 * on its exact relative values: the same certificate as RVI, usually in a handful of steps.
 * When rounding keeps the bounds from closing to the tolerance, it finishes with RVI from
 * the last values.
 */
export async function policyIteration(model: CompiledModel, opts: SolveOptions): Promise<SolverOutput> {
  const out = await iterate(model, opts);
  if (out !== ILL_CONDITIONED) return out;
  // The §4 extrapolation made this model's chains ill-conditioned (large overflow moments:
  // long arrival-count laws near S). Solve the truncation that keeps every row stochastic
  // instead, overflow lumped at S: policy iteration on it cannot cycle, and the tail check
  // of the caller still decides whether S is large enough.
  const stochastic = lumpOverflowAtS(model);
  const lumped = await iterate(stochastic, { ...opts, warmStart: undefined });
  if (lumped !== ILL_CONDITIONED) return { ...lumped, method: `${lumped.method} (overflow lumped at S)` };
  // Seen where power outweighs latency by orders of magnitude: nearly every policy then costs the
  // same, the policies' chains are nearly reducible and their relative values lose their digits.
  // Value iteration needs no exact evaluation: on the stochastic truncation its Odoni bounds
  // close monotonically, and they certify g* whatever the conditioning of the chains.
  const perSweep = (model.S + 1) * model.M * model.B;
  const sweeps = opts.maxIterations > 0 ? opts.maxIterations : Math.max(1000, Math.min(DEGENERATE_RVI_SWEEPS, Math.floor(DEGENERATE_RVI_WORK / perSweep)));
  const rvi = await relativeValueIteration(stochastic, { ...opts, warmStart: undefined, maxIterations: sweeps });
  if (rvi.stopReason === 'converged') return { ...rvi, method: `${rvi.method} (overflow lumped at S; policy iteration lost its digits)` };
  throw new LimitError(
    'objective',
    `the policies of this objective are too close to degenerate for exact evaluation in f64 (typically power outweighing latency by orders of magnitude), and value iteration left a relative interval of ${((rvi.upper - rvi.lower) / Math.abs(rvi.lower)).toExponential(2)} after ${rvi.iterations} sweeps (tolerance ${opts.tolerance}): raise latencyWeight or lower powerWeight`,
  );
}

/**
 * Sweeps of the value-iteration fallback for objectives policy iteration cannot evaluate: at most
 * this many, and at most DEGENERATE_RVI_WORK state-actions in all (seconds at worst), at least
 * 1,000; a solve's maxIterations overrides both.
 */
const DEGENERATE_RVI_SWEEPS = 200_000;
const DEGENERATE_RVI_WORK = 2e9;

/** Marks a run whose evaluations stopped being trustworthy. */
const ILL_CONDITIONED = Symbol('ill-conditioned');

/** The same model with each overflow sent to S whole (coefficients (m0, 0, 0)): a stochastic truncation. */
export function lumpOverflowAtS(model: CompiledModel): CompiledModel {
  const tailCoef = new Float64Array(model.tailCoef.length);
  for (let r = 0; r < tailCoef.length; r += 3) {
    tailCoef[r] = model.tailCoef[r] + model.tailCoef[r + 1] + model.tailCoef[r + 2];
  }
  return { ...model, tailCoef };
}

async function iterate(model: CompiledModel, opts: SolveOptions): Promise<SolverOutput | typeof ILL_CONDITIONED> {
  const { S, B, M } = model;
  const n = (S + 1) * M;
  let policy = new Int32Array(n);
  const warm = opts.warmStart;
  const warmPolicy = warm?.policy && warm.policy.length >= n ? warm.policy : undefined;
  const warmValues = warm?.values && warm.values.length >= n ? warm.values : undefined;
  if (warmPolicy) {
    policy.set(warmPolicy.subarray(0, n));
    // A start from another model may use actions this one lacks (docs/model.md §11.1).
    for (let x = 0; x < n; x++) if (policy[x] > 0 && model.serves[policy[x]] !== 1) policy[x] = startAction(model, Math.floor(x / M));
  } else if (!warmValues) {
    for (let x = M; x < n; x++) policy[x] = startAction(model, Math.floor(x / M));
  }
  const gap = new Float64Array(n);
  let next = new Int32Array(n);
  if (!warmPolicy && warmValues) bellmanStep(model, warmValues.subarray(0, n), gap, policy, undefined, undefined, opts.signal);
  // Waiting at S is not allowed (docs/model.md §4).
  for (let x = S * M; x < n; x++) policy[x] = Math.max(policy[x], startAction(model, S));
  const maxIterations = opts.maxIterations > 0 ? opts.maxIterations : DEFAULT_PI_MAX_ITERATIONS;
  const yielder = new Yielder(opts.signal);
  let values: Float64Array = new Float64Array(n);
  let lower = -Infinity;
  let upper = Infinity;
  let iteration = 0;
  let ref: number | undefined;
  const waits = new Float64Array(n);
  const scratchGap = new Float64Array(n);
  /** Gain of the last policy evaluated that was kept, and the plain improvement of it. */
  let keptGain = Infinity;
  let plainNext: Int32Array | undefined;
  const previous = new Int32Array(n);
  let hasPrevious = false;
  const seen = new Set<number>();
  let last: ModelEvaluation | undefined;
  while (iteration < maxIterations) {
    await yielder.check();
    let ev = evaluateOnModel(model, policy, ref, last, opts.signal);
    if (plainNext && !(ev.gain < keptGain - LOOKAHEAD_MARGIN * Math.abs(keptGain))) {
      // The lookahead candidate did not clearly lower g: take the plain improvement step
      // instead, which policy iteration guarantees. The margin keeps rounding noise among
      // tied policies from being taken for progress (which could cycle).
      policy.set(plainNext);
      ev = evaluateOnModel(model, policy, ref, ev, opts.signal);
    }
    last = ev;
    plainNext = undefined;
    // Policy iteration lowers g at every step; a rise, a non-finite value or a revisited
    // policy means the evaluations have lost their digits.
    if (!Number.isFinite(ev.gain) || !Number.isFinite(ev.values[n - 1]) || ev.gain > keptGain + RISE_MARGIN * Math.abs(keptGain)) {
      return ILL_CONDITIONED;
    }
    const hash = policyHash(policy);
    if (seen.has(hash) && iteration > 0) return ILL_CONDITIONED;
    seen.add(hash);
    keptGain = ev.gain;
    ref = ev.mode;
    values = ev.values;
    for (let s = 0; s < n; s++) values[s] /= model.tau; // h̃ = h/τ
    bellmanStep(model, values, gap, next, policy, waits, opts.signal);
    iteration++;
    ({ lower, upper } = gapBounds(gap));
    // At exact values the current action attains g at every state, so m ≤ g ≤ M.
    const slack = 1e-6 * Math.abs(ev.gain);
    if (!(lower <= ev.gain + slack && upper >= ev.gain - slack)) return ILL_CONDITIONED;
    const converged = boundsConverged(lower, upper, opts.tolerance);
    // A return to the policy of two steps back is a cycle (the tail extrapolation's negative
    // coefficients near S can make two actions each look better under the other's values):
    // handled like a stable policy, by value iteration from the exact values.
    const stable = sameActions(policy, next) || (hasPrevious && sameActions(previous, next));
    opts.onProgress?.({ iteration, lower, upper, policy: next.slice(), maxQueue: S });
    if (converged) {
      return policyIterationResult(next, values, lower, upper, iteration, 'converged');
    }
    if (stable) {
      if (opts.worthCertifying && !opts.worthCertifying(next)) return policyIterationResult(next, values, lower, upper, iteration, 'precision-limit');
      const sweep = (maxIterations: number, from: Float64Array) => relativeValueIteration(model, { ...opts, maxIterations, warmStart: { values: from } });
      return finishStablePolicy(sweep, opts, { policy: next, values, lower, upper, iteration });
    }
    previous.set(policy);
    hasPrevious = true;
    // Only when plain steps have slowed to a few states each (a wait run being found state by
    // state): a rejected candidate costs an extra evaluation.
    if (changedStates(policy, next) <= FEW_CHANGES) {
      scratchGap.set(gap);
      const plain = next.slice();
      if (lookAheadAlongWaits(model, scratchGap, waits, next, ev.gain)) plainNext = plain;
    }
    [policy, next] = [next, policy];
  }
  return policyIterationResult(policy, values, lower, upper, iteration, 'max-iterations');
}

/** A CPU policy-iteration output. */
export function policyIterationResult(
  policy: Int32Array,
  values: Float64Array,
  lower: number,
  upper: number,
  iterations: number,
  stopReason: SolverOutput['stopReason'],
): SolverOutput {
  return { policy, values, lower, upper, iterations, stopReason, method: 'policy-iteration', backend: 'cpu', adapter: '' };
}

/**
 * The end of policy iteration at a stable policy whose bounds rounding holds open: a few RVI
 * sweeps from the exact values often close them; if they do not, the gap is at f64's floor
 * for this model and the tighter of the (still valid) intervals is returned, 'precision-limit'.
 * `sweep` runs RVI from given values.
 */
export async function finishStablePolicy(
  sweep: (maxIterations: number, values: Float64Array) => Promise<SolverOutput>,
  opts: SolveOptions,
  at: { readonly policy: Int32Array; readonly values: Float64Array; readonly lower: number; readonly upper: number; readonly iteration: number },
): Promise<SolverOutput> {
  const rvi = await fallbackSweeps(sweep, opts, at.values, at.upper - at.lower, at.iteration);
  if (rvi.stopReason === 'converged') {
    return { ...rvi, iterations: at.iteration + rvi.iterations, method: 'policy-iteration+value-iteration' };
  }
  const tighter = rvi.upper - rvi.lower < at.upper - at.lower;
  return {
    ...policyIterationResult(at.policy, at.values, tighter ? rvi.lower : at.lower, tighter ? rvi.upper : at.upper, at.iteration, 'precision-limit'),
    iterations: at.iteration + rvi.iterations,
  };
}

/**
 * RVI sweeps from exact values, in rounds of PROBE_SWEEPS up to FALLBACK_SWEEPS, each round
 * kept going only if the previous one halved the interval. On deep chains (S in the tens of
 * thousands) the sweeps only stir the rounding noise, and the first round shows it.
 */
async function fallbackSweeps(
  sweep: (maxIterations: number, values: Float64Array) => Promise<SolverOutput>,
  opts: SolveOptions,
  values: Float64Array,
  spread: number,
  iteration: number,
): Promise<SolverOutput> {
  const budget = Math.min(FALLBACK_SWEEPS, opts.maxIterations > 0 ? Math.max(1, opts.maxIterations - iteration) : FALLBACK_SWEEPS);
  let used = 0;
  let from = values;
  let width = spread;
  for (;;) {
    const round = await sweep(Math.min(PROBE_SWEEPS, budget - used), from);
    used += round.iterations;
    const narrower = round.upper - round.lower < 0.5 * width;
    if (round.stopReason === 'converged' || used >= budget || !narrower) return { ...round, iterations: used };
    from = round.values;
    width = round.upper - round.lower;
  }
}

/** FNV-1a over the actions: revisits of a policy are cycles. */
export function policyHash(a: Int32Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < a.length; i++) h = Math.imul(h ^ a[i], 0x01000193);
  return h >>> 0;
}

function changedStates(a: Int32Array, b: Int32Array): number {
  let c = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) c++;
  return c;
}

export function sameActions(a: Int32Array, b: Int32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export const cpuPolicyIteration: Solver = { backend: 'cpu', solve: policyIteration };
