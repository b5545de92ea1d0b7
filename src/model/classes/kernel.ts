import { arrivalPmf } from '../arrivals.js';
import { LimitError } from '../errors.js';
import type { ClassParams } from './params.js';

/** Mass a trimmed edge slab of one axis may hold; it is moved onto the nearest kept slab. */
const SLAB_CUT = 1e-17;

/**
 * The joint law of the arrivals (K_1, …, K_C) of every class during one batch of b of class c,
 * on a box [lo_c', lo_c' + len_c') per axis, flat with the last class fastest.
 *
 * Given T = t the counts are independent Poisson(λ_c'·t), so given their total K = m they are
 * multinomial(m; λ_c'/Λ) whatever the law of T. Hence, exactly,
 *     P(K_1 = k_1, …, K_C = k_C) = P(K = Σk)·multinomial(k; λ/Λ),
 * with P(K = m) the single-class count law of §2 at rate Λ = Σλ_c (Poisson for deterministic T,
 * negative binomial for gamma/exponential, cut with its remainder kept, arrivals.ts). No
 * quadrature: the only error is that cut (< 1e-15) and the edge slabs of the box holding < 1e-17.
 */
export interface JointKernel {
  readonly lo: Int32Array;
  readonly len: Int32Array;
  readonly probs: Float64Array;
  /** Deterministic service: the counts are independent and probs is the product of these (factors[x] over len[x]). */
  readonly factors?: readonly Float64Array[];
}

export function jointKernel(classes: readonly ClassParams[], c: number, b: number): JointKernel {
  if (classes[c].distribution === 'DETERMINISTIC') return productKernel(classes, c, b);
  const C = classes.length;
  const served = classes[c];
  const rate = classes.reduce((s, k) => s + k.arrivalRate, 0);
  const total = arrivalPmf(served.distribution, rate, served.meanService[b], served.secondMoment[b], served.cv);
  const kmax = total.offset + total.probs.length - 1;
  const logq = classes.map((k) => Math.log(k.arrivalRate / rate));
  const logFact = new Float64Array(kmax + 2);
  for (let m = 1; m <= kmax + 1; m++) logFact[m] = logFact[m - 1] + Math.log(m);
  const side = kmax + 1;
  const size = side ** C;
  if (size > 50_000_000) throw new LimitError('classes', `the joint arrival law of ${served.name} at b = ${b} needs ${side}^${C} entries, over 50000000`);
  const full = new Float64Array(size);
  const k = new Int32Array(C);
  // Every split of each total m: the last class takes the rest.
  const visit = (axis: number, left: number, m: number, pm: number, logw: number): void => {
    if (axis === C - 1) {
      k[axis] = left;
      const lw = logw - logFact[left] + left * logq[axis];
      let at = 0;
      for (let a = 0; a < C; a++) at = at * side + k[a];
      full[at] += pm * Math.exp(lw + logFact[m]);
      return;
    }
    for (let v = 0; v <= left; v++) {
      k[axis] = v;
      visit(axis + 1, left - v, m, pm, logw - logFact[v] + v * logq[axis]);
    }
  };
  for (let i = 0; i < total.probs.length; i++) {
    const pm = total.probs[i];
    if (pm > 0) visit(0, total.offset + i, total.offset + i, pm, 0);
  }
  return trimmed(full, C, side);
}

/** The box holding all but SLAB_CUT per edge slab of each axis; the cut slabs' mass is clamped onto the box. */
function trimmed(full: Float64Array, C: number, side: number): JointKernel {
  const lo = new Int32Array(C);
  const len = new Int32Array(C);
  const strideOf = (a: number) => side ** (C - 1 - a);
  for (let a = 0; a < C; a++) {
    const marginal = new Float64Array(side);
    const st = strideOf(a);
    for (let x = 0; x < full.length; x++) marginal[Math.floor(x / st) % side] += full[x];
    let first = 0;
    let below = 0;
    while (first < side - 1 && below + marginal[first] < SLAB_CUT) below += marginal[first++];
    let last = side - 1;
    let above = 0;
    while (last > first && above + marginal[last] < SLAB_CUT) above += marginal[last--];
    lo[a] = first;
    len[a] = last - first + 1;
  }
  let size = 1;
  for (let a = 0; a < C; a++) size *= len[a];
  const probs = new Float64Array(size);
  for (let x = 0; x < full.length; x++) {
    const p = full[x];
    if (p === 0) continue;
    let at = 0;
    for (let a = 0; a < C; a++) {
      const i = Math.floor(x / strideOf(a)) % side;
      at = at * len[a] + Math.min(Math.max(i - lo[a], 0), len[a] - 1);
    }
    probs[at] += p;
  }
  return { lo, len, probs };
}

/**
 * Deterministic T = l: the counts are independent Poisson(λ_x·l), each cut as the single-class law
 * (arrivals.ts, tails below 1e-15 kept on the boundary atoms), and the joint law is their product,
 * kept as its factors too: the Bellman step then sums one axis at a time (bellman.ts).
 */
function productKernel(classes: readonly ClassParams[], c: number, b: number): JointKernel {
  const l = classes[c].meanService[b];
  const m2 = classes[c].secondMoment[b];
  const laws = classes.map((k) => arrivalPmf('DETERMINISTIC', k.arrivalRate, l, m2, 0));
  const lo = Int32Array.from(laws, (f) => f.offset);
  const len = Int32Array.from(laws, (f) => f.probs.length);
  let size = 1;
  for (const f of laws) size *= f.probs.length;
  if (size > 50_000_000) throw new LimitError('classes', `the joint arrival law of ${classes[c].name} at b = ${b} needs ${size} entries, over 50000000`);
  let probs = Float64Array.of(1);
  for (const f of laws) {
    const next = new Float64Array(probs.length * f.probs.length);
    for (let i = 0; i < probs.length; i++) for (let k = 0; k < f.probs.length; k++) next[i * f.probs.length + k] = probs[i] * f.probs[k];
    probs = next;
  }
  return { lo, len, probs, factors: laws.map((f) => f.probs) };
}
