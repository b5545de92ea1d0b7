import type { CompiledMmppModel } from '../../model/mmpp/compile.js';

/**
 * One Bellman step of the transformed (s, j) MDP (spec §3 with the state of §7) at relative
 * values h (flat, s-major):
 *   gap[x]    = min_a [ c̃(x,a) + (τ/y(x,a))·(E_a h(x) − h(x)) ]   (= V_{n+1}(x) − h(x))
 *   policy[x] = the minimising action.
 * With `keep`, an action of `keep` within a relative 1e-12 of the minimum is kept, so that
 * policy iteration never cycles between equally good actions.
 */
export function mmppBellmanStep(
  model: CompiledMmppModel,
  h: Float64Array,
  gap: Float64Array,
  policy: Int32Array,
  keep?: Int32Array,
): void {
  const { S, B, M, tau, costSlope, waitKappa, rates, generator: Q, kappa, sojourn } = model;
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
      let best = Infinity;
      let arg = 0;
      let keepValue = Infinity;
      const kept = keep ? keep[x] : -1;
      if (s < S) {
        let drift = rates[j] * (h[x + M] - hx);
        for (let jj = 0; jj < M; jj++) if (jj !== j) drift += Q[j * M + jj] * (h[row + jj] - hx);
        best = hold + waitKappa + tau * drift;
        if (kept === 0) keepValue = best;
      }
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
        let acc = 0;
        for (let e = 0; e < len; e++) acc += pmf[pBase + e] * (h[hBase + e] - hx);
        const first = tailFirstState[b];
        if (s >= first) {
          const r = ((tailStart[b] + s - first) * M + j) * M * 3;
          for (let jj = 0; jj < M; jj++) {
            const c = r + jj * 3;
            acc += tailCoef[c] * (h[topS + jj] - hx) + tailCoef[c + 1] * (h[top1 + jj] - hx) + tailCoef[c + 2] * (h[top2 + jj] - hx);
          }
        }
        const v = hold + kappa[b * M + j] + (tau / sojourn[b]) * acc;
        if (v < best) {
          best = v;
          arg = b;
        }
        if (b === kept) keepValue = v;
      }
      if (kept >= 0 && kept !== arg && keepValue - best <= 1e-12 * Math.abs(best)) {
        best = keepValue;
        arg = kept;
      }
      gap[x] = best;
      policy[x] = arg;
    }
  }
}
