import type { ClassesModel } from './compile.js';

/**
 * Calls f(x, n) for every state of the box lo ≤ n < hi (default: all states) in flat order, the
 * last class fastest; n is the one buffer, updated in place.
 */
export function eachState(model: ClassesModel, f: (x: number, n: Int32Array) => void, lo?: ArrayLike<number>, hi?: ArrayLike<number>): void {
  const { C, dims, strides } = model;
  const from = Int32Array.from(lo ?? new Int32Array(C));
  const to = hi ?? dims;
  let x = 0;
  for (let c = 0; c < C; c++) {
    if (from[c] >= to[c]) return;
    x += from[c] * strides[c];
  }
  const n = Int32Array.from(from);
  for (;;) {
    f(x, n);
    let a = C - 1;
    for (; a >= 0; a--) {
      if (++n[a] < to[a]) {
        x += strides[a];
        break;
      }
      n[a] = from[a];
      x -= (to[a] - 1 - from[a]) * strides[a];
    }
    if (a < 0) return;
  }
}

/**
 * The transformed chain P̃ of a model under a fixed policy, as the forward product one state at a
 * time: the stationary law's iterations (stationary.ts) all go through `scatter`.
 */
export class PolicyChain {
  /** P̃(x, x) from the action alone: 1 − Σ_c τλ_c for waiting, 1 − τ/l for a serve. */
  private readonly stay: Float64Array;
  private readonly t: Int32Array;

  constructor(
    readonly model: ClassesModel,
    private readonly policy: Int32Array,
  ) {
    const { actions, ratio, waitRate } = model;
    const out = waitRate.reduce((s, w) => s + w, 0);
    this.stay = Float64Array.from({ length: actions }, (_, a) => 1 - (a === 0 ? out : ratio[a]));
    this.t = new Int32Array(model.C);
  }

  /**
   * Adds m·P̃(x, ·) into acc (n the coordinates of x). Arrivals past a top are held at the top
   * (lumped, the Math.min(·, S_c)): the law is read only where the tops hold almost nothing.
   */
  scatter(x: number, n: Int32Array, m: number, acc: Float64Array): void {
    if (m === 0) return;
    const { C, S, strides, waitRate, actionClass, actionBatch, ratio, rowStart, rowLength, rowValue, rowCoord, probs } = this.model;
    const act = this.policy[x];
    acc[x] += m * this.stay[act];
    if (act === 0) {
      // Waiting is allowed only below every top: no clamp.
      for (let c = 0; c < C; c++) acc[x + strides[c]] += m * waitRate[c];
      return;
    }
    const { t } = this;
    const c0 = actionClass[act];
    const b = actionBatch[act];
    const w = m * ratio[act];
    const last = C - 1;
    const top = S[last];
    for (let row = rowStart[act]; row < rowStart[act + 1]; row++) {
      let at = 0;
      for (let c = 0; c < last; c++) {
        t[c] = n[c] - (c === c0 ? b : 0) + rowCoord[row * C + c];
        at += Math.min(t[c], S[c]) * strides[c];
      }
      const t0 = n[last] - (last === c0 ? b : 0) + rowCoord[row * C + last];
      const pb = rowValue[row];
      const len = rowLength[row];
      // The entries below the top land in place, the rest all on the top (one add, not a Math.min per entry).
      const free = Math.min(len, Math.max(top - t0, 0));
      const base = at + t0;
      for (let e = 0; e < free; e++) acc[base + e] += w * probs[pb + e];
      if (free < len) {
        let tail = 0;
        for (let e = free; e < len; e++) tail += probs[pb + e];
        acc[at + top] += w * tail;
      }
    }
  }
}
