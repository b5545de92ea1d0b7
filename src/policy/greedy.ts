import type { CompiledModel } from '../model/compile.js';

/** Relative difference under which two action values count as tied. */
const TIE = 1e-12;
/** lookAheadAlongWaits leaves the levels within this of S alone. */
const TOP_GUARD = 4;

/**
 * One Bellman step of the transformed MDP (docs/model.md §3) at relative values h (flat,
 * s-major, see CompiledModel):
 *   gap[x]    = min_a [ c̃(x,a) + (τ/y(x,a))·(E_a h(x) − h(x)) ]   (= V_{n+1}(x) − h(x))
 *   policy[x] = the minimising action.
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
  const { S, B, M, tau, costSlope, waitRate, phaseRate, kappa, sojourn } = model;
  const { pmfOffset, pmfStart, pmfLength, pmf, tailFirstState, tailStart, tailCoef } = model;
  const topS = S * M;
  const top1 = (S - 1) * M;
  const top2 = (S - 2) * M;
  for (let s = 0; s <= S; s++) {
    const hold = costSlope * s;
    const row = s * M;
    const bmax = s < B ? s : B;
    for (let j = 0; j < M; j++) {
      const x = row + j;
      const hx = h[x];
      let waitValue = Infinity;
      if (s < S) {
        let drift = waitRate[j] * (h[x + M] - hx);
        for (let jj = 0; jj < M; jj++) if (jj !== j) drift += phaseRate[j * M + jj] * (h[row + jj] - hx);
        waitValue = hold + kappa[j] + drift;
      }
      if (waits) waits[x] = waitValue;
      let serveValue = Infinity;
      let serve = 0;
      let keepValue = Infinity;
      const kept = keep ? keep[x] : -1;
      if (kept === 0) keepValue = waitValue;
      for (let b = 1; b <= bmax; b++) {
        const L = pmfLength[b];
        const j0 = s - b + pmfOffset[b];
        let nIn = S - j0 + 1;
        if (nIn > L) nIn = L;
        const pBase = pmfStart[b] + j * L * M;
        const hBase = j0 * M;
        const len = nIn * M;
        // E_b h − h(x) summed as Σ p·(h(y) − h(x)) (each row sums to 1): differences of nearby
        // values keep their digits where h itself is large (long queues, big S).
        // Unrolled by four, the terms still added one by one in order.
        let acc = 0;
        let e = 0;
        for (const end = len - 3; e < end; e += 4) {
          const p = pBase + e;
          const q = hBase + e;
          acc += pmf[p] * (h[q] - hx);
          acc += pmf[p + 1] * (h[q + 1] - hx);
          acc += pmf[p + 2] * (h[q + 2] - hx);
          acc += pmf[p + 3] * (h[q + 3] - hx);
        }
        for (; e < len; e++) acc += pmf[pBase + e] * (h[hBase + e] - hx);
        const first = tailFirstState[b];
        if (s >= first) {
          const r = ((tailStart[b] + s - first) * M + j) * M * 3;
          for (let jj = 0; jj < M; jj++) {
            const c = r + jj * 3;
            acc += tailCoef[c] * (h[topS + jj] - hx) + tailCoef[c + 1] * (h[top1 + jj] - hx) + tailCoef[c + 2] * (h[top2 + jj] - hx);
          }
        }
        const v = hold + kappa[b * M + j] + (tau / sojourn[b * M + j]) * acc;
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
      gap[x] = best;
      policy[x] = arg;
    }
  }
}

/**
 * A policy-improvement lookahead along the wait transitions (s, j) → (s+1, j).
 *
 * The plain improvement step judges "wait at (s, j)" by h(s+1, j), the value of the *old*
 * action there; when the better policy waits through a run of levels (say up to a batch size
 * the service table makes cheap), plain policy iteration discovers that run one level per
 * iteration. Going down from S, this pass credits waiting at (s, j) with the improvement
 * already found at (s+1, j) (δ = gap − g, turned from a rate over the sojourn there into one
 * over the wait's arrival intensity λ_j), so a whole run flips in one step. `policy` and `gap`
 * (from bellmanStep at h with `waits`) are updated in place; returns whether anything changed.
 * The result is a heuristic candidate: policy iteration keeps it only if it lowers g.
 */
export function lookAheadAlongWaits(
  model: CompiledModel,
  gap: Float64Array,
  waits: Float64Array,
  policy: Int32Array,
  gain: number,
): boolean {
  const { S, M, rates, sojourn } = model;
  let changed = false;
  // Only below B, where a wait for a fuller batch can pay (control limits), and never next to
  // S, whose values the tail extrapolation couples: candidate waits in deep states made
  // chains whose values lost all digits.
  for (let s = Math.min(S - TOP_GUARD, model.B - 1); s >= 0; s--) {
    for (let j = 0; j < M; j++) {
      const x = s * M + j;
      const above = gap[x + M] - gain;
      if (!(above < 0)) continue;
      const ahead = waits[x] + rates[j] * sojourn[policy[x + M] * M + j] * above;
      if (ahead < gap[x] - TIE * Math.abs(gap[x]) && policy[x] !== 0) {
        gap[x] = ahead;
        policy[x] = 0;
        changed = true;
      } else if (policy[x] === 0 && ahead < gap[x]) {
        gap[x] = ahead; // already waiting: carry the improvement further down
      }
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
