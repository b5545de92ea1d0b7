import { LimitError } from '../errors.js';
import { jointKernel } from './kernel.js';
import type { ClassesParams } from './params.js';
import { sizeOf, stridesOf } from './grid.js';

/** Bounds on one joint solve (states, and kernel entries held). */
export const CLASSES_LIMITS = { maxStates: 4_000_000, maxKernelEntries: 40_000_000 } as const;

/**
 * The joint SMDP of docs/model.md §10 cut at S_c per class, transformed (§3) with
 * τ = 0.999·min(1/Λ, min_{c,b} l_c(b)). States n, flat with the last class fastest.
 * Actions: 0 waits (only when every n_c < S_c), a = first[c] + b − 1 serves b of class c
 * (first[0] = 1, first[c+1] = first[c] + B_c).
 *   wait:     c̃ = Σ_c (w_c/λ_c)·n_c + w_pow·P0,  p̃(n + e_c) = τ·λ_c
 *   serve a:  c̃ = Σ_c (w_c/λ_c)·n_c + kappa[a],  kappa = Σ_c' w_c'·m2_c(b)/(2·l_c(b)) + w_pow·P_c(b),
 *             p̃(n − b·e_c + k) = (τ/l_c(b))·P(K = k), the joint law of kernel.ts.
 * Transitions past a top use the values of a padded box (dims `padDims`, S_c + 1 + reach_c)
 * filled by the extrapolation of grid.ts. Each kernel is stored as rows along the last axis,
 * each row its span of nonzero entries: row r of action a reads h at
 *   padded(n) + shift[a] + rowOffset[r] + e,  e < rowLength[r],  weights probs[rowValue[r] + e].
 */
export interface ClassesModel {
  readonly params: ClassesParams;
  readonly C: number;
  readonly S: Int32Array;
  readonly dims: Int32Array;
  readonly strides: Int32Array;
  readonly states: number;
  readonly padDims: Int32Array;
  readonly padStrides: Int32Array;
  readonly tau: number;
  /** Λ = Σ λ_c. */
  readonly totalRate: number;
  /** w_c/λ_c. */
  readonly costSlope: Float64Array;
  /** τ·λ_c. */
  readonly waitRate: Float64Array;
  /** w_pow·P0. */
  readonly idleKappa: number;
  /** Number of actions including wait: 1 + Σ B_c. */
  readonly actions: number;
  readonly actionClass: Int32Array;
  readonly actionBatch: Int32Array;
  readonly kappa: Float64Array;
  /** τ/l_c(b) per action. */
  readonly ratio: Float64Array;
  readonly shift: Int32Array;
  /** Rows of action a: rowStart[a] .. rowStart[a+1]. */
  readonly rowStart: Int32Array;
  readonly rowOffset: Int32Array;
  readonly rowLength: Int32Array;
  readonly rowValue: Int32Array;
  /** Kernel coordinate of each row on every axis but the last, and of its first entry on the last: [r·C + axis]. */
  readonly rowCoord: Int32Array;
  readonly probs: Float64Array;
  /** Nonzero kernel entries per action (the multiply-adds of one serve value). */
  readonly work: Int32Array;
  /**
   * Actions whose kernel is a product (deterministic service, kernel.ts): 1 in `separable`, and
   * factor x of action a at factorProbs[factorStart[a·C + x] … factorStart[a·C + x + 1]).
   */
  readonly separable: Uint8Array;
  readonly factorStart: Int32Array;
  readonly factorProbs: Float64Array;
}

/** The first action index of each class: 1, 1 + B_1, 1 + B_1 + B_2, … */
export function firstActions(p: ClassesParams): Int32Array {
  const first = new Int32Array(p.classes.length);
  let a = 1;
  p.classes.forEach((c, i) => {
    first[i] = a;
    a += c.maxBatchSize;
  });
  return first;
}

export function compileClasses(p: ClassesParams, S: ArrayLike<number>): ClassesModel {
  const C = p.classes.length;
  const top = Int32Array.from(S);
  top.forEach((s, c) => {
    if (!Number.isInteger(s) || s < 2) throw new LimitError(`classes[${c}].maxQueue`, `must be an integer ≥ 2 (got ${s})`);
  });
  const dims = top.map((s) => s + 1);
  const states = sizeOf(dims);
  if (states > CLASSES_LIMITS.maxStates) throw new LimitError('classes', `S = (${Array.from(top).join(', ')}) needs ${states} states, over the bound ${CLASSES_LIMITS.maxStates}`);
  const totalRate = p.classes.reduce((s, c) => s + c.arrivalRate, 0);
  let minY = 1 / totalRate;
  for (const c of p.classes) for (let b = 1; b <= c.maxBatchSize; b++) minY = Math.min(minY, c.meanService[b]);
  const tau = 0.999 * minY;
  const A = 1 + p.classes.reduce((s, c) => s + c.maxBatchSize, 0);
  const actionClass = new Int32Array(A).fill(-1);
  const actionBatch = new Int32Array(A);
  const kappa = new Float64Array(A);
  const ratio = new Float64Array(A);
  const kernels = [];
  const reach = new Int32Array(C);
  let entries = 0;
  let a = 1;
  for (let c = 0; c < C; c++) {
    const cl = p.classes[c];
    for (let b = 1; b <= cl.maxBatchSize; b++, a++) {
      actionClass[a] = c;
      actionBatch[a] = b;
      const l = cl.meanService[b];
      let hold = 0;
      for (const k of p.classes) hold += (k.latencyWeight * cl.secondMoment[b]) / (2 * l);
      kappa[a] = hold + p.powerWeight * cl.busyPower[b];
      ratio[a] = tau / l;
      const kern = jointKernel(p.classes, c, b);
      entries += kern.probs.length;
      if (entries > CLASSES_LIMITS.maxKernelEntries) throw new LimitError('classes', `the joint arrival laws need more than ${CLASSES_LIMITS.maxKernelEntries} entries`);
      for (let x = 0; x < C; x++) reach[x] = Math.max(reach[x], kern.lo[x] + kern.len[x] - 1 - (x === c ? b : 0));
      kernels.push({ c, b, kern });
    }
  }
  const padDims = dims.map((d, c) => d + Math.max(reach[c], 0));
  const padStrides = stridesOf(padDims);
  const strides = stridesOf(dims);
  return { params: p, C, S: top, dims, strides, states, padDims, padStrides, tau, totalRate, costSlope: Float64Array.from(p.classes, (c) => c.latencyWeight / c.arrivalRate), waitRate: Float64Array.from(p.classes, (c) => tau * c.arrivalRate), idleKappa: p.powerWeight * p.idlePower, actions: A, actionClass, actionBatch, kappa, ratio, ...kernelRows(kernels, C, padStrides, A) };
}

/** Packs each kernel as rows of nonzero spans along the last axis, with offsets into the padded box. */
function kernelRows(kernels: { c: number; b: number; kern: ReturnType<typeof jointKernel> }[], C: number, padStrides: Int32Array, A: number) {
  const rowStart = new Int32Array(A + 1);
  const offs: number[] = [];
  const lens: number[] = [];
  const vals: number[] = [];
  const coords: number[] = [];
  const shift = new Int32Array(A);
  const work = new Int32Array(A);
  const probs: number[] = [];
  kernels.forEach(({ c, b, kern }, i) => {
    const a = i + 1;
    rowStart[a] = offs.length;
    let sh = -b * padStrides[c];
    for (let x = 0; x < C; x++) sh += kern.lo[x] * padStrides[x];
    shift[a] = sh;
    const last = kern.len[C - 1];
    const rows = kern.probs.length / last;
    const k = new Int32Array(C);
    for (let r = 0; r < rows; r++) {
      let rem = r;
      let off = 0;
      for (let x = C - 2; x >= 0; x--) {
        k[x] = rem % kern.len[x];
        rem = Math.floor(rem / kern.len[x]);
        off += k[x] * padStrides[x];
      }
      let first = 0;
      let end = last;
      while (first < last && kern.probs[r * last + first] === 0) first++;
      while (end > first && kern.probs[r * last + end - 1] === 0) end--;
      if (end === first) continue;
      offs.push(off + first);
      lens.push(end - first);
      vals.push(probs.length);
      for (let x = 0; x < C - 1; x++) coords.push(kern.lo[x] + k[x]);
      coords.push(kern.lo[C - 1] + first);
      for (let e = first; e < end; e++) probs.push(kern.probs[r * last + e]);
      work[a] += end - first;
    }
    rowStart[a + 1] = offs.length;
  });
  return { shift, rowStart, rowOffset: Int32Array.from(offs), rowLength: Int32Array.from(lens), rowValue: Int32Array.from(vals), rowCoord: Int32Array.from(coords), probs: Float64Array.from(probs), work, ...factorsOf(kernels, C, A) };
}

/** The product kernels' factors, flat (ClassesModel.separable, factorStart, factorProbs). */
function factorsOf(kernels: { kern: ReturnType<typeof jointKernel> }[], C: number, A: number) {
  const separable = new Uint8Array(A);
  const factorStart = new Int32Array(A * C + 1);
  const flat: number[] = [];
  for (let a = 0; a < A; a++) {
    const factors = a > 0 ? kernels[a - 1].kern.factors : undefined;
    if (factors) separable[a] = 1;
    for (let x = 0; x < C; x++) {
      factorStart[a * C + x] = flat.length;
      if (factors) for (const p of factors[x]) flat.push(p);
    }
  }
  factorStart[A * C] = flat.length;
  return { separable, factorStart, factorProbs: Float64Array.from(flat) };
}
