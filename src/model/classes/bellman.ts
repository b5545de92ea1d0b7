import { throwIfAborted } from '../errors.js';
import type { BellmanOperator } from '../../solve/operator.js';
import type { ClassesModel } from './compile.js';
import { clampBox, extendBox, sizeOf } from './grid.js';

/** Relative difference under which serving and waiting count as tied (the single-class rule). */
const TIE = 1e-12;

/**
 * The joint model's Bellman step (docs/model.md §10) as a BellmanOperator, reference state
 * n = 0. Each sweep first fills the padded box with h and its extrapolation past the tops
 * (grid.ts), so every serve value is a plain sum over its kernel:
 *   gap(n) = min( wait: Σ_c (w_c/λ_c)·n_c + w_pow·P0 + Σ_c τλ_c·(h(n + e_c) − h(n)),
 *                 serve a: Σ_c (w_c/λ_c)·n_c + kappa[a] + (τ/l)·Σ_k P(k)·(H(n − b·e_c + k) − h(n)) ),
 * each serve sum of differences Σ p·(H − h(n)), as the single-class step does, so that values far
 * from 0 keep their digits. Ties between serves go to the first (lowest class, smallest b);
 * near-ties between serving and waiting go to serving. The sweep runs action by action over all
 * states, so that a product kernel's per-axis sums (separableSums) are formed once per sweep.
 */
export function classesOperator(model: ClassesModel, overflow: Overflow = 'extrapolate'): BellmanOperator {
  const scratch = stepScratch(model);
  return {
    states: model.states,
    referenceState: 0,
    maxQueue: Math.max(...model.S),
    step: (h, gap, policy, signal) => classesStep(model, h, gap, policy, scratch, signal, overflow),
  };
}

/**
 * How a transition past a top is valued: the quadratic extrapolation of §10 (the model), or the
 * value at the top (lumped: every row stochastic, a genuine MDP, the fallback when the signed
 * extrapolated rows make value iteration diverge).
 */
export type Overflow = 'extrapolate' | 'lump';

/** Buffers of one operator's sweeps: the padded box, per-state holding cost and best values, and the per-axis sums. */
export interface StepScratch {
  readonly H: Float64Array;
  readonly hold: Float64Array;
  readonly waitValue: Float64Array;
  readonly serveValue: Float64Array;
  readonly serve: Int32Array;
  /** F[x] for axes x = 1..C−1 (separableSums), over the padded box; F[0] unused. */
  readonly F: Float64Array[];
}

export function stepScratch(model: ClassesModel): StepScratch {
  const pad = sizeOf(model.padDims);
  const n = model.states;
  const anySeparable = model.separable.some((x) => x === 1);
  return {
    H: new Float64Array(pad),
    hold: new Float64Array(n),
    waitValue: new Float64Array(n),
    serveValue: new Float64Array(n),
    serve: new Int32Array(n),
    F: Array.from({ length: model.C }, (_, x) => new Float64Array(anySeparable && x > 0 ? pad : 0)),
  };
}

export function classesStep(model: ClassesModel, h: Float64Array, gap: Float64Array, policy: Int32Array, scratch: StepScratch, signal?: AbortSignal, overflow: Overflow = 'extrapolate'): void {
  const { C, S, dims, strides, costSlope, waitRate, idleKappa, actions } = model;
  const { H, hold, waitValue, serveValue, serve } = scratch;
  (overflow === 'lump' ? clampBox : extendBox)(h, S, H, model.padDims);
  const n = new Int32Array(C);
  for (let x = 0; x < model.states; x++) {
    if (x > 0) for (let a = C - 1; a >= 0 && ++n[a] === dims[a]; a--) n[a] = 0;
    let cost = 0;
    let canWait = true;
    for (let c = 0; c < C; c++) {
      cost += costSlope[c] * n[c];
      if (n[c] >= S[c]) canWait = false;
    }
    hold[x] = cost;
    let value = Infinity;
    if (canWait) {
      let drift = 0;
      for (let c = 0; c < C; c++) drift += waitRate[c] * (h[x + strides[c]] - h[x]);
      value = cost + idleKappa + drift;
    }
    waitValue[x] = value;
  }
  serveValue.fill(Infinity);
  serve.fill(0);
  for (let a = 1; a < actions; a++) {
    throwIfAborted(signal);
    serveAction(model, a, h, scratch, signal);
  }
  for (let x = 0; x < model.states; x++) {
    const w = waitValue[x];
    const v = serveValue[x];
    if (serve[x] > 0 && (w === Infinity || v <= w + TIE * Math.max(Math.abs(v), Math.abs(w)))) {
      gap[x] = v;
      policy[x] = serve[x];
    } else {
      gap[x] = w;
      policy[x] = 0;
    }
  }
}

/**
 * Serve values of action a at every state where it is allowed; a state keeps the lower. The sum
 * over the kernel is by its rows, or for a product kernel over the per-axis sums of separableSums.
 */
function serveAction(model: ClassesModel, a: number, h: Float64Array, scratch: StepScratch, signal?: AbortSignal): void {
  const { C, dims, padStrides, actionClass, actionBatch, kappa, ratio, shift, rowStart, rowOffset, rowLength, rowValue, probs, factorProbs } = model;
  const { H, hold, serveValue, serve } = scratch;
  const sep = model.separable[a] === 1 ? separableSums(model, a, scratch, signal) : undefined;
  const { f0, len0, s0, F1, P0 } = sep ?? { f0: 0, len0: 0, s0: 0, F1: undefined, P0: 0 };
  const c = actionClass[a];
  const b = actionBatch[a];
  const n = new Int32Array(C);
  for (let x = 0; x < model.states; x++) {
    if (x > 0) for (let k = C - 1; k >= 0 && ++n[k] === dims[k]; k--) n[k] = 0;
    if ((x & 4095) === 0) throwIfAborted(signal);
    if (b > n[c]) continue;
    let base = shift[a];
    for (let k = 0; k < C; k++) base += n[k] * padStrides[k];
    const hx = h[x];
    let acc = 0;
    if (sep) {
      if (F1) for (let k = 0; k < len0; k++) acc += factorProbs[f0 + k] * (F1[base + k * s0] + P0 * (H[base + k * s0] - hx));
      else for (let k = 0; k < len0; k++) acc += factorProbs[f0 + k] * (H[base + k * s0] - hx);
    } else {
      for (let r = rowStart[a]; r < rowStart[a + 1]; r++) {
        const hb = base + rowOffset[r];
        const pb = rowValue[r];
        const len = rowLength[r];
        for (let e = 0; e < len; e++) acc += probs[pb + e] * (H[hb + e] - hx);
      }
    }
    const v = hold[x] + kappa[a] + ratio[a] * acc;
    if (v < serveValue[x]) {
      serveValue[x] = v;
      serve[x] = a;
    }
  }
}

/**
 * The per-axis sums of an action whose kernel is a product p_0 ⊗ … ⊗ p_{C−1} (deterministic
 * service), still as sums of differences between nearby values. With P_x = Σ p_x and P_{>x} the
 * product of those past x, over the padded box (s_x its strides):
 *   F_{C−1}(y) = Σ_k p_{C−1}(k)·(H(y + k) − H(y)),
 *   F_x(y)     = Σ_k p_x(k)·(F_{x+1}(y + k·s_x) + P_{>x}·(H(y + k·s_x) − H(y)))   (x = C−2 … 1),
 * and at state n with kernel origin y: Σ_k P(k)·(H(y + k) − h(n)) = Σ_k p_0(k)·(F_1(y + k·s_0) +
 * P_{>0}·(H(y + k·s_0) − h(n))) (serveAction). A serve costs Σ_x len_x multiply-adds instead of Π_x len_x.
 */
function separableSums(model: ClassesModel, a: number, scratch: StepScratch, signal?: AbortSignal) {
  const { C, padDims, padStrides, factorStart, factorProbs } = model;
  const { H, F } = scratch;
  const pad = H.length;
  // after[x] = P_{>x}
  const after = new Float64Array(C);
  let tail = 1;
  for (let x = C - 1; x >= 0; x--) {
    after[x] = tail;
    let sum = 0;
    for (let i = factorStart[a * C + x]; i < factorStart[a * C + x + 1]; i++) sum += factorProbs[i];
    tail *= sum;
  }
  for (let x = C - 1; x >= 1; x--) {
    const f0 = factorStart[a * C + x];
    const len = factorStart[a * C + x + 1] - f0;
    const st = padStrides[x];
    const out = F[x];
    const inner = x + 1 < C ? F[x + 1] : undefined;
    const Pa = after[x];
    for (let y = 0; y < pad; y++) {
      if ((y & 65535) === 0) throwIfAborted(signal);
      // Only origins whose kernel fits in the box are ever read (the box is padded for them).
      if ((Math.floor(y / st) % padDims[x]) + len > padDims[x]) continue;
      const hy = H[y];
      let acc = 0;
      if (inner) for (let k = 0; k < len; k++) acc += factorProbs[f0 + k] * (inner[y + k * st] + Pa * (H[y + k * st] - hy));
      else for (let k = 0; k < len; k++) acc += factorProbs[f0 + k] * (H[y + k * st] - hy);
      out[y] = acc;
    }
  }
  const f0 = factorStart[a * C];
  return { f0, len0: factorStart[a * C + 1] - f0, s0: padStrides[0], F1: C > 1 ? F[1] : undefined, P0: after[0] };
}

/**
 * Multiplications of one sweep's serve sums: for a kernel by rows, its entries at every state
 * where the serve is allowed; for a product kernel (separableSums), len_0 terms of two there,
 * and per sweep the per-axis sums F_x over the positions where they are formed. With `byRows`,
 * every kernel by its rows (the GPU's classes_sweep.wgsl, which forms no per-axis sums).
 */
export function sweepWork(model: ClassesModel, byRows = false): number {
  const { C, dims, padDims, actions, actionClass, actionBatch, work, separable, factorStart } = model;
  const len = (a: number, x: number) => factorStart[a * C + x + 1] - factorStart[a * C + x];
  const perState = new Float64Array(actions);
  let total = 0;
  for (let a = 1; a < actions; a++) {
    if (byRows || separable[a] === 0) {
      perState[a] = work[a];
      continue;
    }
    perState[a] = len(a, 0) * (C > 1 ? 2 : 1);
    for (let x = 1; x < C; x++) {
      let positions = 1;
      for (let y = 0; y < C; y++) positions *= y === x ? Math.max(padDims[y] - len(a, x) + 1, 0) : padDims[y];
      total += positions * len(a, x) * (x < C - 1 ? 2 : 1);
    }
  }
  const n = new Int32Array(C);
  for (let x = 0; x < model.states; x++) {
    if (x > 0) for (let a = C - 1; a >= 0 && ++n[a] === dims[a]; a--) n[a] = 0;
    for (let a = 1; a < actions; a++) if (actionBatch[a] <= n[actionClass[a]]) total += perState[a];
  }
  return total;
}
