import { throwIfAborted } from '../errors.js';
import type { BellmanOperator } from '../../solve/operator.js';
import type { ClassesModel } from './compile.js';
import { clampBox, extendBox, sizeOf } from './grid.js';

/** Relative difference under which serving and waiting count as tied (the single-class rule). */
const TIE = 1e-12;

/**
 * The joint model's Bellman step (docs/model.md §10) as a BellmanOperator, reference state
 * n = 0. Each sweep first fills the padded box with h and its extrapolation past the tops
 * (grid.ts), so every serve value is a plain sum over its kernel's rows:
 *   gap(n) = min( wait: Σ_c (w_c/λ_c)·n_c + w_pow·P0 + Σ_c τλ_c·(h(n + e_c) − h(n)),
 *                 serve a: Σ_c (w_c/λ_c)·n_c + kappa[a] + (τ/l)·Σ_k P(k)·(H(n − b·e_c + k) − h(n)) ),
 * each serve sum of differences Σ p·(H − h(n)), as the single-class step does, so that values far
 * from 0 keep their digits. Ties between serves go to the first (lowest class, smallest b);
 * near-ties between serving and waiting go to serving.
 */
export function classesOperator(model: ClassesModel, overflow: Overflow = 'extrapolate'): BellmanOperator {
  const H = new Float64Array(sizeOf(model.padDims));
  return {
    states: model.states,
    referenceState: 0,
    maxQueue: Math.max(...model.S),
    step: (h, gap, policy, signal) => classesStep(model, h, gap, policy, H, signal, overflow),
  };
}

/**
 * How a transition past a top is valued: the quadratic extrapolation of §10 (the model), or the
 * value at the top (lumped: every row stochastic, a genuine MDP, the fallback when the signed
 * extrapolated rows make value iteration diverge).
 */
export type Overflow = 'extrapolate' | 'lump';

export function classesStep(model: ClassesModel, h: Float64Array, gap: Float64Array, policy: Int32Array, H: Float64Array, signal?: AbortSignal, overflow: Overflow = 'extrapolate'): void {
  const { C, S, dims, strides, padStrides, costSlope, waitRate, idleKappa, actions, actionClass, actionBatch, kappa, ratio, shift } = model;
  const { rowStart, rowOffset, rowLength, rowValue, probs } = model;
  (overflow === 'lump' ? clampBox : extendBox)(h, S, H, model.padDims);
  const n = new Int32Array(C);
  for (let x = 0; x < model.states; x++) {
    if (x > 0) for (let a = C - 1; a >= 0 && ++n[a] === dims[a]; a--) n[a] = 0;
    if ((x & 4095) === 0) throwIfAborted(signal);
    const hx = h[x];
    let hold = 0;
    let px = 0;
    let canWait = true;
    for (let c = 0; c < C; c++) {
      hold += costSlope[c] * n[c];
      px += n[c] * padStrides[c];
      if (n[c] >= S[c]) canWait = false;
    }
    let waitValue = Infinity;
    if (canWait) {
      let drift = 0;
      for (let c = 0; c < C; c++) drift += waitRate[c] * (h[x + strides[c]] - hx);
      waitValue = hold + idleKappa + drift;
    }
    let serveValue = Infinity;
    let serve = 0;
    for (let a = 1; a < actions; a++) {
      if (actionBatch[a] > n[actionClass[a]]) continue;
      const base = px + shift[a];
      let acc = 0;
      for (let r = rowStart[a]; r < rowStart[a + 1]; r++) {
        const hb = base + rowOffset[r];
        const pb = rowValue[r];
        const len = rowLength[r];
        for (let e = 0; e < len; e++) acc += probs[pb + e] * (H[hb + e] - hx);
      }
      const v = hold + kappa[a] + ratio[a] * acc;
      if (v < serveValue) {
        serveValue = v;
        serve = a;
      }
    }
    let best = waitValue;
    let arg = 0;
    if (serve > 0 && (waitValue === Infinity || serveValue <= waitValue + TIE * Math.max(Math.abs(serveValue), Math.abs(waitValue)))) {
      best = serveValue;
      arg = serve;
    }
    gap[x] = best;
    policy[x] = arg;
  }
}

/** Multiply-adds of one sweep: the kernel entries of every allowed serve of every state. */
export function sweepWork(model: ClassesModel): number {
  const { C, dims, actions, actionClass, actionBatch, work } = model;
  let total = 0;
  const n = new Int32Array(C);
  for (let x = 0; x < model.states; x++) {
    if (x > 0) for (let a = C - 1; a >= 0 && ++n[a] === dims[a]; a--) n[a] = 0;
    for (let a = 1; a < actions; a++) if (actionBatch[a] <= n[actionClass[a]]) total += work[a];
  }
  return total;
}
