import { mmppBand, type CompiledMmppModel } from '../../model/mmpp/compile.js';
import { BandChain, solveChain } from '../chain.js';
import type { ModelEvaluation } from '../modelChain.js';

/**
 * Exact evaluation of an (s, j) policy on the truncated, tail-corrected MMPP model: the
 * evaluation step of policy iteration. The flat s-major order makes the chain banded
 * (lo = (B+1)·M − 1, hi = (upReach+1)·M − 1), so the same GTH reduction as the Poisson model
 * applies. Values are SMDP relative values h (h = τ·h̃) with h(0, 0) = 0; `mode` is the most
 * likely flat state, the reference for the next, similar policy.
 */
export function evaluateOnMmppModel(model: CompiledMmppModel, policy: Int32Array, ref?: number): ModelEvaluation {
  const { S, M, costSlope, waitKappa, rates, generator: Q, waitSojourn, kappa, sojourn } = model;
  const { pmfOffset, pmfStart, pmfLength, pmf, tailFirstState, tailStart, tailCoef } = model;
  const n = (S + 1) * M;
  const { lo, hi } = mmppBand(model);
  const ch = new BandChain(n, lo, hi);
  const { a, width: W } = ch;
  for (let s = 0; s <= S; s++) {
    for (let j = 0; j < M; j++) {
      const x = s * M + j;
      const act = policy[x];
      const row = x * W - x + lo; // a[row + z] = entry (x, z)
      if (act === 0) {
        const y = waitSojourn[j];
        if (rates[j] > 0) a[row + x + M] += rates[j] * y;
        for (let jj = 0; jj < M; jj++) if (jj !== j) a[row + s * M + jj] += Q[j * M + jj] * y;
        ch.reward[x] = (costSlope * s + waitKappa) * y;
        ch.time[x] = y;
        continue;
      }
      const L = pmfLength[act];
      const j0 = s - act + pmfOffset[act];
      const nIn = Math.min(L, S - j0 + 1);
      const pBase = pmfStart[act] + j * L * M;
      for (let e = 0; e < nIn * M; e++) a[row + j0 * M + e] += pmf[pBase + e];
      const first = tailFirstState[act];
      if (s >= first) {
        const r = ((tailStart[act] + s - first) * M + j) * M * 3;
        for (let jj = 0; jj < M; jj++) {
          a[row + S * M + jj] += tailCoef[r + jj * 3];
          a[row + (S - 1) * M + jj] += tailCoef[r + jj * 3 + 1];
          a[row + (S - 2) * M + jj] += tailCoef[r + jj * 3 + 2];
        }
      }
      const y = sojourn[act];
      ch.reward[x] = (costSlope * s + kappa[act * M + j]) * y;
      ch.time[x] = y;
    }
  }
  const r = ref ?? solveChain(ch).mode;
  const sol = solveChain(ch, { ref: r });
  const h = sol.values;
  const h0 = h[0];
  for (let x = 0; x < n; x++) h[x] -= h0;
  return { gain: sol.gain, values: h, mode: sol.mode };
}
