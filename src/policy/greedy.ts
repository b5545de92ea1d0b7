import type { CompiledModel } from '../model/compile.js';
import { throwIfAborted } from '../model/errors.js';

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
 *
 * Each serve sum is added term by term in the order of its terms, whatever the grouping: with
 * one phase unrolled by four; with several, the phases of a level read the same window of h
 * and are summed four at a time in one pass over it (a phase past M repeats the last one),
 * each in its own accumulator, so that the passes are not held up by one chain of additions.
 */
export function bellmanStep(
  model: CompiledModel,
  h: Float64Array,
  gap: Float64Array,
  policy: Int32Array,
  keep?: Int32Array,
  /** When given, receives each state's wait value (Infinity at S), for lookAheadAlongWaits. */
  waits?: Float64Array,
  /** Checked every 1024 queue levels: one sweep over a large model takes a good part of a second. */
  signal?: AbortSignal,
): void {
  const { S, B, M, tau, costSlope, waitRate, phaseRate, kappa, sojourn } = model;
  const { pmfOffset, pmfStart, pmfLength, pmf, tailFirstState, tailStart, tailCoef, serves } = model;
  const topS = S * M;
  const top1 = (S - 1) * M;
  const top2 = (S - 2) * M;
  // Per phase of the level at hand: h there, the best serve so far and the kept action's value.
  const hx = new Float64Array(M);
  const serveValue = new Float64Array(M);
  const serve = new Int32Array(M);
  const keepValue = new Float64Array(M);
  /** The serve-b value of (s, j) from its sum Σ p·(h(y) − h(x)) inside the table, tail terms added here. */
  const consider = (s: number, j: number, b: number, acc: number): void => {
    const first = tailFirstState[b];
    if (s >= first) {
      const r = ((tailStart[b] + s - first) * M + j) * M * 3;
      const x = hx[j];
      for (let jj = 0; jj < M; jj++) {
        const c = r + jj * 3;
        acc += tailCoef[c] * (h[topS + jj] - x) + tailCoef[c + 1] * (h[top1 + jj] - x) + tailCoef[c + 2] * (h[top2 + jj] - x);
      }
    }
    const v = costSlope * s + kappa[b * M + j] + (tau / sojourn[b * M + j]) * acc;
    if (v < serveValue[j]) {
      serveValue[j] = v;
      serve[j] = b;
    }
    if (keep && b === keep[s * M + j]) keepValue[j] = v;
  };
  for (let s = 0; s <= S; s++) {
    if ((s & 1023) === 0) throwIfAborted(signal);
    const hold = costSlope * s;
    const row = s * M;
    const bmax = s < B ? s : B;
    for (let j = 0; j < M; j++) {
      hx[j] = h[row + j];
      serveValue[j] = Infinity;
      serve[j] = 0;
      keepValue[j] = Infinity;
    }
    for (let b = 1; b <= bmax; b++) {
      if (serves[b] === 0) continue; // not an action of this model (docs/model.md §11.1)
      const L = pmfLength[b];
      const j0 = s - b + pmfOffset[b];
      let nIn = S - j0 + 1;
      if (nIn > L) nIn = L;
      const hBase = j0 * M;
      const len = nIn * M;
      // E_b h − h(x) summed as Σ p·(h(y) − h(x)) (each row sums to 1): differences of nearby
      // values keep their digits where h itself is large (long queues, big S).
      if (M === 1) {
        consider(s, 0, b, sumAgainst(pmf, pmfStart[b], h, hBase, len, hx[0]));
        continue;
      }
      for (let j = 0; j < M; j += 4) {
        const j1 = Math.min(j + 1, M - 1);
        const j2 = Math.min(j + 2, M - 1);
        const j3 = Math.min(j + 3, M - 1);
        const p0 = pmfStart[b] + j * L * M;
        const p1 = pmfStart[b] + j1 * L * M;
        const p2 = pmfStart[b] + j2 * L * M;
        const p3 = pmfStart[b] + j3 * L * M;
        const x0 = hx[j];
        const x1 = hx[j1];
        const x2 = hx[j2];
        const x3 = hx[j3];
        let a0 = 0;
        let a1 = 0;
        let a2 = 0;
        let a3 = 0;
        for (let e = 0; e < len; e++) {
          const y = h[hBase + e];
          a0 += pmf[p0 + e] * (y - x0);
          a1 += pmf[p1 + e] * (y - x1);
          a2 += pmf[p2 + e] * (y - x2);
          a3 += pmf[p3 + e] * (y - x3);
        }
        consider(s, j, b, a0);
        if (j1 > j) consider(s, j1, b, a1);
        if (j2 > j1) consider(s, j2, b, a2);
        if (j3 > j2) consider(s, j3, b, a3);
      }
    }
    for (let j = 0; j < M; j++) {
      const x = row + j;
      const hxj = hx[j];
      let waitValue = Infinity;
      if (s < S) {
        let drift = waitRate[j] * (h[x + M] - hxj);
        for (let jj = 0; jj < M; jj++) if (jj !== j) drift += phaseRate[j * M + jj] * (h[row + jj] - hxj);
        waitValue = hold + kappa[j] + drift;
      }
      if (waits) waits[x] = waitValue;
      const kept = keep ? keep[x] : -1;
      const keptValue = kept === 0 ? waitValue : keepValue[j];
      // Near-ties go to serving: when waiting buys nothing (e.g. a zero latency weight makes
      // every "wait longer" policy equally good), the policy should not drift up to S.
      let best = waitValue;
      let arg = 0;
      const sv = serveValue[j];
      if (serve[j] > 0 && (waitValue === Infinity || sv <= waitValue + TIE * Math.max(Math.abs(sv), Math.abs(waitValue)))) {
        best = sv;
        arg = serve[j];
      }
      // Policy iteration keeps its current action on near-ties so that it cannot cycle, except
      // that a kept wait never displaces a tied serve.
      if (kept >= 0 && kept !== arg && keptValue - best <= TIE * Math.abs(best) && !(kept === 0 && arg > 0)) {
        best = keptValue;
        arg = kept;
      }
      gap[x] = best;
      policy[x] = arg;
    }
  }
}

/** Σ_e p[pBase + e]·(h[hBase + e] − hx) over e < len, unrolled by four (the terms added in order). */
function sumAgainst(p: Float64Array, pBase: number, h: Float64Array, hBase: number, len: number, hx: number): number {
  let acc = 0;
  let e = 0;
  for (const end = len - 3; e < end; e += 4) {
    const a = pBase + e;
    const b = hBase + e;
    acc += p[a] * (h[b] - hx);
    acc += p[a + 1] * (h[b + 1] - hx);
    acc += p[a + 2] * (h[b + 2] - hx);
    acc += p[a + 3] * (h[b + 3] - hx);
  }
  for (; e < len; e++) acc += p[pBase + e] * (h[hBase + e] - hx);
  return acc;
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
