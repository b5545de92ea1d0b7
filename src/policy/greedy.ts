import type { CompiledModel } from '../model/compile.js';

/** Relative difference under which two action values count as tied. */
const TIE = 1e-12;
/** lookAheadAlongWaits leaves the states within this of S alone. */
const TOP_GUARD = 4;

/**
 * One Bellman step of the transformed MDP (spec §3) at relative values h:
 *   gap[s]    = min_a [ c̃(s,a) + (τ/y_a)·(E_a h(s) − h(s)) ]   (= V_{n+1}(s) − h(s))
 *   policy[s] = the minimising action.
 * With `keep`, an action of `keep` within a relative 1e-12 of the minimum is kept, so that
 * policy iteration never cycles between equally good actions.
 */
export function bellmanStep(
  model: CompiledModel,
  h: Float64Array,
  gap: Float64Array,
  policy: Int32Array,
  keep?: Int32Array,
  /** When given, receives each state's wait value (Infinity at S), for lookAheadAlongWaits. */
  waits?: Float64Array,
): void {
  const { S, B, tau, lambda, costSlope, kappa, sojourn, pmfOffset, pmfStart, pmfLength, pmf } = model;
  const { tailFirstState, tailStart, tailCoef } = model;
  const hS = h[S];
  const hS1 = h[S - 1];
  const hS2 = h[S - 2];
  const waitRate = tau * lambda;
  for (let s = 0; s <= S; s++) {
    const hs = h[s];
    const hold = costSlope * s;
    const waitValue = s < S ? hold + kappa[0] + waitRate * (h[s + 1] - hs) : Infinity;
    if (waits) waits[s] = waitValue;
    let serveValue = Infinity;
    let serve = 0;
    let keepValue = Infinity;
    const kept = keep ? keep[s] : -1;
    if (kept === 0) keepValue = waitValue;
    const bmax = s < B ? s : B;
    for (let b = 1; b <= bmax; b++) {
      const j0 = s - b + pmfOffset[b];
      const st = pmfStart[b];
      let nIn = S - j0 + 1;
      if (nIn > pmfLength[b]) nIn = pmfLength[b];
      // E_b h(s) − h(s) summed as Σ p·(h(j) − h(s)) (the weights sum to 1): differences of
      // nearby values keep their digits where h itself is large (long queues, big S).
      let acc = 0;
      for (let i = 0; i < nIn; i++) acc += pmf[st + i] * (h[j0 + i] - hs);
      const first = tailFirstState[b];
      if (s >= first) {
        const r = (tailStart[b] + s - first) * 3;
        acc += tailCoef[r] * (hS - hs) + tailCoef[r + 1] * (hS1 - hs) + tailCoef[r + 2] * (hS2 - hs);
      }
      const v = hold + kappa[b] + (tau / sojourn[b]) * acc;
      if (v < serveValue) {
        serveValue = v;
        serve = b;
      }
      if (b === kept) keepValue = v;
    }
    // Near-ties go to serving: when waiting buys nothing (e.g. a zero latency weight makes
    // every "wait longer" policy equally good), the policy should not drift up to S.
    let best = waitValue;
    let arg = 0;
    if (serve > 0 && (waitValue === Infinity || serveValue <= waitValue + TIE * Math.max(Math.abs(serveValue), Math.abs(waitValue)))) {
      best = serveValue;
      arg = serve;
    }
    // Policy iteration keeps its current action on near-ties so that it cannot cycle, except
    // that a kept wait never displaces a tied serve.
    if (kept >= 0 && kept !== arg && keepValue - best <= TIE * Math.abs(best) && !(kept === 0 && arg > 0)) {
      best = keepValue;
      arg = kept;
    }
    gap[s] = best;
    policy[s] = arg;
  }
}

/**
 * A policy-improvement lookahead along the deterministic wait transitions s → s+1.
 *
 * The plain improvement step judges "wait at s" by h(s+1), the value of the *old* action at
 * s+1; when the better policy waits through a run of states (say up to a batch size the
 * service table makes cheap), plain policy iteration discovers that run one state per
 * iteration. Going down from S, this pass credits waiting at s with the improvement already
 * found at s+1 (δ(s+1) = gap(s+1) − g, turned from a rate over the sojourn at s+1 into one
 * over the wait's 1/λ), so a whole run flips in one step. `policy` and `gap` (from
 * bellmanStep at h with `waits`) are updated in place; returns whether anything changed.
 * The result is a heuristic candidate: policy iteration keeps it only if it lowers g.
 */
export function lookAheadAlongWaits(
  model: CompiledModel,
  gap: Float64Array,
  waits: Float64Array,
  policy: Int32Array,
  gain: number,
): boolean {
  const { S, lambda, sojourn } = model;
  let changed = false;
  // Only below B, where a wait for a fuller batch can pay (control limits), and never next to
  // S, whose values the tail extrapolation couples: candidate waits in deep states made
  // chains whose values lost all digits.
  for (let s = Math.min(S - TOP_GUARD, model.B - 1); s >= 0; s--) {
    const above = gap[s + 1] - gain;
    if (!(above < 0)) continue;
    const ahead = waits[s] + lambda * sojourn[policy[s + 1]] * above;
    if (ahead < gap[s] - TIE * Math.abs(gap[s]) && policy[s] !== 0) {
      gap[s] = ahead;
      policy[s] = 0;
      changed = true;
    } else if (policy[s] === 0 && ahead < gap[s]) {
      gap[s] = ahead; // already waiting: carry the improvement further down
    }
  }
  return changed;
}

/** Odoni bounds of a Bellman step: min and max of the gap. */
export function gapBounds(gap: Float64Array): { lower: number; upper: number } {
  let lower = Infinity;
  let upper = -Infinity;
  for (let s = 0; s < gap.length; s++) {
    const v = gap[s];
    if (v < lower) lower = v;
    if (v > upper) upper = v;
  }
  return { lower, upper };
}

/** Whether the certified interval is tight enough: M − m ≤ ε·|m|. */
export function boundsConverged(lower: number, upper: number, tolerance: number): boolean {
  return upper - lower <= tolerance * Math.abs(lower);
}
