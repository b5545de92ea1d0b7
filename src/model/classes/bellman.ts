import { throwIfAborted } from '../errors.js';
import type { BellmanOperator } from '../../solve/operator.js';
import type { ClassesModel } from './compile.js';
import { clampBox, coordsOf, extendBox, sizeOf } from './grid.js';

/** Relative difference under which serving and waiting count as tied (the single-class rule). */
const TIE = 1e-12;

/**
 * The joint model's Bellman step (docs/model.md §10) as a BellmanOperator, reference state
 * n = 0. Each sweep first fills the padded box with h and its extrapolation past the tops
 * (grid.ts), so every serve value is a plain sum over its kernel:
 *   gap(n) = min( wait: Σ_c (w_c/λ_c)·n_c + w_pow·P0 + Σ_c τλ_c·(h(n + e_c) − h(n)),
 *                 serve a: Σ_c (w_c/λ_c)·n_c + kappa[a] + (τ/l)·Σ_k P(k)·(H(n − b·e_c + k) − h(n)) ),
 * each serve sum of differences Σ p·(H − h(n)), as the single-class step does, so that values far
 * from 0 keep their digits. A product kernel's per-axis sums (axisSums) are formed once per sweep.
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

/** Buffers of one operator's sweeps: the padded box and, per product-kernel action and axis, its per-axis sums. */
export interface StepScratch {
  readonly H: Float64Array;
  /** F[a][x] for product-kernel actions a and axes x = 1..C−1 (separableSums), over the padded box; empty otherwise. */
  readonly F: Float64Array[][];
}

export function stepScratch(model: ClassesModel, alloc: (length: number) => Float64Array = (n) => new Float64Array(n)): StepScratch {
  const pad = sizeOf(model.padDims);
  return {
    H: alloc(pad),
    F: Array.from({ length: model.actions }, (_, a) => Array.from({ length: model.C }, (_, x) => alloc(model.separable[a] === 1 && x > 0 ? pad : 0))),
  };
}

/**
 * One Bellman step in three phases that a caller may also split over threads (parallelStep.ts):
 * the padded box (fillBox, whole), the per-axis sums of every product kernel, axis C−1 down to 1
 * (axisSums, by blocks of padded positions, each axis after the one above it), and every state's
 * wait and serve values and choice (stateValues, by blocks of states).
 */
export function classesStep(model: ClassesModel, h: Float64Array, gap: Float64Array, policy: Int32Array, scratch: StepScratch, signal?: AbortSignal, overflow: Overflow = 'extrapolate'): void {
  fillBox(model, h, scratch, overflow);
  const pad = scratch.H.length;
  for (let x = model.C - 1; x >= 1; x--) axisSums(model, scratch, x, 0, pad, signal);
  stateValues(model, h, gap, policy, scratch, 0, model.states, signal);
}

/** The padded box from h: the quadratic extrapolation past the tops, or the value at the top (lumped). */
export function fillBox(model: ClassesModel, h: Float64Array, scratch: StepScratch, overflow: Overflow): void {
  (overflow === 'lump' ? clampBox : extendBox)(h, model.S, scratch.H, model.padDims);
}

/**
 * Wait and serve values of states x0 ≤ x < x1 and the choice between them. Ties between serves
 * go to the first (lowest class, smallest b); near-ties between serving and waiting go to serving.
 * A serve sums over its kernel's rows, or for a product kernel over the per-axis sums F.
 */
export function stateValues(model: ClassesModel, h: Float64Array, gap: Float64Array, policy: Int32Array, scratch: StepScratch, x0: number, x1: number, signal?: AbortSignal): void {
  const { C, S, dims, strides, padStrides, costSlope, waitRate, idleKappa, actions, actionClass, actionBatch, kappa, ratio, shift, rowStart, rowOffset, rowLength, rowValue, probs, factorProbs, factorStart, separable } = model;
  const { H, F } = scratch;
  const mass = afterMasses(model);
  const n = coordsOf(x0, dims);
  for (let x = x0; x < x1; x++) {
    if (x > x0) for (let a = C - 1; a >= 0 && ++n[a] === dims[a]; a--) n[a] = 0;
    if ((x & 4095) === 0) throwIfAborted(signal);
    let hold = 0;
    let canWait = true;
    let padded = 0;
    for (let c = 0; c < C; c++) {
      hold += costSlope[c] * n[c];
      if (n[c] >= S[c]) canWait = false;
      padded += n[c] * padStrides[c];
    }
    const hx = h[x];
    let wait = Infinity;
    if (canWait) {
      let drift = 0;
      for (let c = 0; c < C; c++) drift += waitRate[c] * (h[x + strides[c]] - hx);
      wait = hold + idleKappa + drift;
    }
    let best = Infinity;
    let arg = 0;
    for (let a = 1; a < actions; a++) {
      if (actionBatch[a] > n[actionClass[a]]) continue;
      const base = padded + shift[a];
      let acc = 0;
      if (separable[a] === 1) {
        const f0 = factorStart[a * C];
        const len0 = factorStart[a * C + 1] - f0;
        const s0 = padStrides[0];
        const F1 = C > 1 ? F[a][1] : undefined;
        const P0 = mass[a * C];
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
      const v = hold + kappa[a] + ratio[a] * acc;
      if (v < best) {
        best = v;
        arg = a;
      }
    }
    if (arg > 0 && (wait === Infinity || best <= wait + TIE * Math.max(Math.abs(best), Math.abs(wait)))) {
      gap[x] = best;
      policy[x] = arg;
    } else {
      gap[x] = wait;
      policy[x] = 0;
    }
  }
}

/** P_{>x} = the product of the factor masses past axis x, for every product-kernel action: [a·C + x]. */
function afterMass(model: ClassesModel): Float64Array {
  const { C, actions, separable, factorStart, factorProbs } = model;
  const out = new Float64Array(actions * C);
  for (let a = 1; a < actions; a++) {
    if (separable[a] !== 1) continue;
    let tail = 1;
    for (let x = C - 1; x >= 0; x--) {
      out[a * C + x] = tail;
      let sum = 0;
      for (let i = factorStart[a * C + x]; i < factorStart[a * C + x + 1]; i++) sum += factorProbs[i];
      tail *= sum;
    }
  }
  return out;
}

const afterCache = new WeakMap<ClassesModel, Float64Array>();
/** P_{>x} of every product-kernel action, [a·C + x] (computed once per model; the GPU's per-axis sums use these too, jointPack.ts). */
export function afterMasses(model: ClassesModel): Float64Array {
  let v = afterCache.get(model);
  if (!v) afterCache.set(model, (v = afterMass(model)));
  return v;
}

/**
 * The per-axis sums of every action whose kernel is a product p_0 ⊗ … ⊗ p_{C−1} (deterministic
 * service) on axis x ≥ 1, at padded positions y0 ≤ y < y1, still as sums of differences between
 * nearby values. With P_x = Σ p_x and P_{>x} the product of those past x, over the padded box
 * (s_x its strides):
 *   F_{C−1}(y) = Σ_k p_{C−1}(k)·(H(y + k) − H(y)),
 *   F_x(y)     = Σ_k p_x(k)·(F_{x+1}(y + k·s_x) + P_{>x}·(H(y + k·s_x) − H(y)))   (x = C−2 … 1),
 * so axis x needs axis x + 1 everywhere first; at state n with kernel origin y:
 * Σ_k P(k)·(H(y + k) − h(n)) = Σ_k p_0(k)·(F_1(y + k·s_0) + P_{>0}·(H(y + k·s_0) − h(n)))
 * (stateValues). A serve costs Σ_x len_x multiply-adds instead of Π_x len_x.
 */
export function axisSums(model: ClassesModel, scratch: StepScratch, x: number, y0: number, y1: number, signal?: AbortSignal): void {
  const { C, padDims, padStrides, factorStart, factorProbs, actions, separable } = model;
  const { H, F } = scratch;
  const mass = afterMasses(model);
  for (let a = 1; a < actions; a++) {
    if (separable[a] !== 1) continue;
    const f0 = factorStart[a * C + x];
    const len = factorStart[a * C + x + 1] - f0;
    const st = padStrides[x];
    const out = F[a][x];
    const inner = x + 1 < C ? F[a][x + 1] : undefined;
    const Pa = mass[a * C + x];
    for (let y = y0; y < y1; y++) {
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
}

/**
 * Multiplications of one sweep's serve sums: for a kernel by rows, its entries at every state
 * where the serve is allowed; for a product kernel (separableSums), len_0 terms of two there,
 * and per sweep the per-axis sums F_x over the positions where they are formed (the GPU's Bellman
 * sweep too: classes_axis.wgsl forms them at the same positions). With `byRows`, every kernel by
 * its rows (the GPU's evaluation sweeps, and a model whose sums pass the binding limit, jointAxis.ts).
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
