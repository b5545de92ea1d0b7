import type { CompiledModel } from '../model/compile.js';
import { BandChain, solveChain } from './chain.js';

/** A reference state at least this likely relative to the mode keeps the values accurate. */
const LIKELY = 1e-2;
/** Refinement rounds of the relative values (see solveChain): cheap, and they close bounds that rounding held open. */
const REFINE_ROUNDS = 1;

export interface ModelEvaluation {
  /** Average cost of the policy on the truncated, tail-corrected model. */
  readonly gain: number;
  /** SMDP relative values h (h = τ·h̃), h(0) = 0. */
  readonly values: Float64Array;
  /** Most likely state under the policy: the reference to use for the next evaluation. */
  readonly mode: number;
}

/**
 * Exact evaluation of a policy on the truncated model itself, tail extrapolation included
 * (the chain then has a few negative coefficients near S, which the reduction tolerates):
 * the evaluation step of policy iteration.
 */
export function evaluateOnModel(model: CompiledModel, policy: Int32Array, ref?: number): ModelEvaluation {
  const { S, B, costSlope, kappa, sojourn, pmfOffset, pmfStart, pmfLength, pmf } = model;
  const { tailFirstState, tailStart, tailCoef } = model;
  const n = S + 1;
  const ch = new BandChain(n, Math.max(B, 2), model.upReach);
  const { a, width: W, lo } = ch;
  for (let s = 0; s < n; s++) {
    const act = policy[s];
    const row = s * W - s + lo;
    if (act === 0) {
      a[row + s + 1] += 1;
    } else {
      const j0 = s - act + pmfOffset[act];
      const st = pmfStart[act];
      const nIn = Math.min(pmfLength[act], S - j0 + 1);
      for (let i = 0; i < nIn; i++) a[row + j0 + i] += pmf[st + i];
      const first = tailFirstState[act];
      if (s >= first) {
        const r = (tailStart[act] + s - first) * 3;
        a[row + S] += tailCoef[r];
        a[row + S - 1] += tailCoef[r + 1];
        a[row + S - 2] += tailCoef[r + 2];
      }
    }
    const y = sojourn[act];
    ch.reward[s] = (costSlope * s + kappa[act]) * y;
    ch.time[s] = y;
  }
  // The values are accurate only when the reference is a likely state (see chain.ts); the
  // stationary distribution is accurate from any reference. So solve from the hint (a
  // previous, similar policy's mode) and solve again from this policy's mode if the hint
  // turns out to be rare here.
  let sol = solveChain(ch, { ref: ref ?? 0, refine: REFINE_ROUNDS });
  if (!(sol.stationary[sol.ref] >= LIKELY * sol.stationary[sol.mode])) sol = solveChain(ch, { ref: sol.mode, refine: REFINE_ROUNDS });
  const h = sol.values;
  const h0 = h[0];
  for (let s = 0; s < n; s++) h[s] -= h0;
  return { gain: sol.gain, values: h, mode: sol.mode };
}
