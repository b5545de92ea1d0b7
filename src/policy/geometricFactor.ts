import { GEOMETRIC_REFERENCE_CAP } from '../model/chainEntries.js';
import { throwIfAborted } from '../model/errors.js';
import { fixedMemory, kernelsOn, Layout } from '../wasm/kernels.js';
import { BandChain, solveChain, substituteOn, type ChainSolution } from './chain.js';

/**
 * The reduction of geometricChain.ts (docs/model.md §3.5, "geometric laws"). Serving b at s
 * lands at u + i, u = s − b, with probability c·q^i (c = 1 − q, q = q_b) for u + i ≤ S, plus the tail coefficients of §4 on S, S−1, S−2. The states are eliminated from
 * S down to ref + 1 as in chain.ts (GTH: pivots are sums of the row's remaining entries), but
 * the columns right of a row are never stored: for a row i serving b ("class" b) every entry
 * a(i, j), j > i, is at any point of the elimination
 *
 *   a(i, j) = q_b^(j−i)·A_b(j) + Σ_t tail_t(i)·T_t(j)        (t: the columns S, S−1, S−2)
 *
 * with A_b and T_t independent of i: true of the original rows, and kept by every pivot k
 * (it adds f(i, k)·a(k, j) over j ∈ [k−lo, k), f(i, k) = a(i, k)/d(k) of that same form).
 * A wait row i only ever has a(i, i+1) = 1 to its right. So a pivot costs
 * O(lo·(classes + 3)) instead of O(lo·pmf): its row left of the diagonal (lo entries, explicit),
 * and per class a window of lo + 1 columns, G_b(j) = Σ_{k'>k} q_b^(k'−k)·A_b(k')/d(k')·a(k', j),
 * multiplied by q_b each level (a convex-combination recurrence that never amplifies rounding).
 *
 * What is left, states 0..ref, is their censored chain: it is built explicitly (ref is the
 * likely reference of chain.ts, a short stretch) and solved by `solveChain`; h above ref follows
 * by back substitution and ν by the same class sums run upwards. The law is the exact geometric
 * one up to S (the recurrence of the Bellman step, §3.2), not the table's cut with its boundary
 * atom: the two differ by the table's rounding, ≤ 1e-15 of a row.
 */

/**
 * The chain to reduce: n states, the action of each (0 waits: one step up; b serves b: from
 * s − b by the geometric law of ratio q_b up to the top state n − 1) and per state three
 * coefficients on the top states n − 1, n − 2, n − 3 for what passes the top (the §4 tail of
 * the model chain; the overflow kept at the top in the extended chain of §5.2).
 */
export interface GeometricRows {
  readonly n: number;
  /** The largest batch (the furthest jump down), at least 2 (the tail columns). */
  readonly lo: number;
  readonly act: Int32Array;
  /** q_b and 1 − q_b per batch size (GeometricCascade). */
  readonly ratio: Float64Array;
  readonly complement: Float64Array;
  readonly tail: Float64Array;
}

export interface GeometricFactor {
  readonly rows: GeometricRows;
  readonly ref: number;
  /** Class of each state (index into q, cqb), −1 for a wait row. */
  readonly cls: Int32Array;
  readonly q: Float64Array;
  /** c·q^b of each class: A_b of an untouched column. */
  readonly cqb: Float64Array;
  /** Per pivot k > ref: d(k), its row left of the diagonal at red[k·lo − k + lo + j], A_b(k)/d(k) per class, T_t(k)/d(k). */
  readonly d: Float64Array;
  readonly red: Float64Array;
  readonly phi: Float64Array;
  readonly psi: Float64Array;
  /** The censored chain of 0..ref and its solution (its factor replays corrections). */
  readonly small: BandChain;
  readonly smallSolution: ChainSolution;
}

/**
 * A class's entries in column j of its rows are at most q^(j − i)·(a row's mass); past the
 * distance where q^(j − i) < REACH (its highest row + log REACH / log q) they are left out, as
 * the arrival table leaves out atoms below 1e-15: 1e-20 of a row is below the rounding of every
 * sum it would enter. Rows serving small batches at short queues (a class each) then cost only
 * over the levels their law reaches, not the whole chain.
 */
const REACH = 1e-20;

/** Pivots per kernel call (between two looks at the abort signal). */
const PIVOTS_PER_CALL = 4096;

/** The reduction to ref; if nothing below a pivot k is reachable from it, the states below are transient and k is recurrent (chain.ts): to k instead. */
export function factorFrom(rows: GeometricRows, ref: number, signal?: AbortSignal): GeometricFactor | undefined {
  const f = factorGeometric(rows, ref, signal);
  if (typeof f !== 'number') return f;
  // Not past the cap of the reference (chainEntries.ts: the censored chain below it is explicit).
  const again = f > ref && f <= GEOMETRIC_REFERENCE_CAP ? factorGeometric(rows, f, signal) : f;
  return typeof again === 'number' ? undefined : again;
}

/** The reduction down to ref, or the pivot that reached nothing below it. */
function factorGeometric(rows: GeometricRows, ref: number, signal?: AbortSignal): GeometricFactor | number {
  const { n, lo, act, ratio, complement, tail } = rows;
  const S = n - 1;
  // Classes: one per batch size served, ordered by how far up their rows' law reaches (their
  // highest state + REACH_LEVELS(q)): above that a class's entries are below REACH of the row,
  // and the class is carried only from there down (see REACH).
  const highest = new Int32Array(ratio.length).fill(-1);
  for (let s = 0; s < n; s++) if (act[s] > 0) highest[act[s]] = s;
  const served: number[] = [];
  for (let b = 1; b < ratio.length; b++) if (highest[b] >= 0) served.push(b);
  const reachOf = (b: number) => highest[b] + (ratio[b] > 0 ? Math.ceil(Math.log(REACH) / Math.log(ratio[b])) : 0);
  served.sort((x, y) => reachOf(y) - reachOf(x));
  const classOfB = new Int32Array(ratio.length).fill(-1);
  served.forEach((b, c) => (classOfB[b] = c));
  const qs = served.map((b) => ratio[b]);
  const cqbs = served.map((b) => complement[b] * ratio[b] ** b);
  const reach = Int32Array.from(served, reachOf);
  const cls = new Int32Array(n);
  for (let s = 0; s < n; s++) cls[s] = act[s] > 0 ? classOfB[act[s]] : -1;
  const C = qs.length;
  // The factor's arrays live in a wasm memory of their own (fresh, hence zero), where the pivot
  // loop runs (wasm/geometric.ts); the rest of this file reads them as views.
  const lay = new Layout();
  const at = {
    act: lay.i32(n),
    cls: lay.i32(n),
    reach: lay.i32(C),
    complement: lay.f64(complement.length),
    tail: lay.f64(3 * n),
    q: lay.f64(C),
    cqb: lay.f64(C),
    d: lay.f64(n),
    red: lay.f64(n * lo),
    phi: lay.f64(n * C),
    psi: lay.f64(n * 3),
    G: lay.f64(C * n),
    H: lay.f64(3 * n),
  };
  const memory = fixedMemory(lay.bytes);
  const buf = memory.buffer;
  const f64 = (byte: number, len: number) => new Float64Array(buf, byte, len);
  new Int32Array(buf, at.act, n).set(act);
  new Int32Array(buf, at.cls, n).set(cls);
  new Int32Array(buf, at.reach, C).set(reach);
  f64(at.complement, complement.length).set(complement);
  f64(at.tail, 3 * n).set(tail);
  const q = f64(at.q, C);
  q.set(qs);
  const cqb = f64(at.cqb, C);
  cqb.set(cqbs);
  const d = f64(at.d, n);
  const red = f64(at.red, n * lo);
  const phi = f64(at.phi, n * C);
  const psi = f64(at.psi, n * 3);
  // G_b and H_t by column (only the window [k − lo, k] is live; a column is final once it leaves it).
  const G = f64(at.G, C * n);
  const H = f64(at.H, 3 * n);
  // Tail columns no row has a coefficient on carry nothing (the extended chain uses only the top one).
  let tails = 0;
  for (let x = 0; x < tail.length; x++) if (tail[x] !== 0) tails = Math.max(tails, (x % 3) + 1);
  const kernels = kernelsOn(memory);
  // In stretches of PIVOTS_PER_CALL, so that a deep chain answers its abort signal.
  for (let k = S; k > ref; k -= PIVOTS_PER_CALL) {
    throwIfAborted(signal);
    const stop = Math.max(ref, k - PIVOTS_PER_CALL);
    const failed = kernels.geometricPivots(n, lo, C, tails, k, stop, at.act, at.cls, at.complement, at.tail, at.q, at.cqb, at.reach, at.d, at.red, at.phi, at.psi, at.G, at.H);
    // The tail rows next to S may sum negative (chain.ts tolerates that too); only a zero pivot stops.
    if (failed >= 0) return failed;
  }
  const small = censoredChain(rows, { ref, cls, q, d, red, G, H });
  const base = { rows, ref, cls, q, cqb, d, red, phi, psi, small };
  // Rewards and times are set by solveReduced before every solve of the small chain.
  small.reward.fill(0);
  small.time.fill(1);
  const smallSolution = solveChain(small, { ref });
  return { ...base, smallSolution };
}

/**
 * States 0..ref after every state above ref is eliminated: their original entries up to ref,
 * plus the fill of the eliminated states, q_b^(ref−i)·G_b(j) + Σ_t tail_t(i)·H_t(j) on
 * j ∈ [ref − lo, ref] (a wait row at ref takes pivot ref+1's row instead).
 */
function censoredChain(
  rows: GeometricRows,
  w: { ref: number; cls: Int32Array; q: Float64Array; d: Float64Array; red: Float64Array; G: Float64Array; H: Float64Array },
): BandChain {
  const { n, lo, act, complement, tail } = rows;
  const S = n - 1;
  const { ref, cls, q, d, red, G, H } = w;
  const m = ref + 1;
  const ch = new BandChain(m, Math.max(1, Math.min(lo, ref)), Math.max(1, ref));
  const jlo = Math.max(0, ref - lo);
  for (let i = 0; i <= ref; i++) {
    const c = cls[i];
    if (c < 0) {
      if (i < ref) ch.add(i, i + 1, 1);
      else if (ref < S) {
        const mult = 1 / d[ref + 1];
        const b1 = (ref + 1) * lo - (ref + 1) + lo;
        for (let j = Math.max(0, ref + 1 - lo); j <= ref; j++) ch.add(i, j, red[b1 + j] * mult);
      }
      continue;
    }
    const b = act[i];
    let p = complement[b];
    for (let j = i - b; j <= ref; j++) {
      ch.add(i, j, p);
      p *= q[c];
    }
    for (let t = 0; t < 3; t++) if (S - t <= ref) ch.add(i, S - t, tail[i * 3 + t]);
    if (ref === S) continue;
    const scale = q[c] ** (ref - i);
    const t0 = tail[i * 3];
    const t1 = tail[i * 3 + 1];
    const t2 = tail[i * 3 + 2];
    for (let j = jlo; j <= ref; j++) ch.add(i, j, scale * G[c * n + j] + t0 * H[j] + t1 * H[n + j] + t2 * H[2 * n + j]);
  }
  return ch;
}

/**
 * The elimination's updates applied to a vector (forward substitution): each pivot k passes
 * f(i, k)·v(k) to every row i < k, gathered per class as U_b = Σ_{k'>k} q_b^(k'−k)·A_b(k')/d(k')·v(k')
 * and per tail column; rows 0..ref end as the censored chain's.
 */
export function reduce(f: GeometricFactor, v: Float64Array): Float64Array {
  const { ref, cls, q, phi, psi, d } = f;
  const { n, tail } = f.rows;
  const C = q.length;
  const out = new Float64Array(n);
  const U = new Float64Array(C);
  let V0 = 0;
  let V1 = 0;
  let V2 = 0;
  const into = (i: number, scale: (c: number) => number): number => {
    const c = cls[i];
    if (c < 0) return i + 1 < n && i >= ref ? out[i + 1] / d[i + 1] : 0;
    return scale(c) * U[c] + tail[i * 3] * V0 + tail[i * 3 + 1] * V1 + tail[i * 3 + 2] * V2;
  };
  for (let k = n - 1; k > ref; k--) {
    const val = v[k] + into(k, () => 1);
    out[k] = val;
    for (let c = 0; c < C; c++) U[c] = q[c] * (U[c] + phi[k * C + c] * val);
    V0 += psi[k * 3] * val;
    V1 += psi[k * 3 + 1] * val;
    V2 += psi[k * 3 + 2] * val;
  }
  for (let i = ref; i >= 0; i--) out[i] = v[i] + into(i, (c) => q[c] ** (ref - i));
  return out;
}

/** g and h from reduced rewards and times: the censored chain's solve replayed, then back substitution above ref. */
export function solveReduced(f: GeometricFactor, rr: Float64Array, tr: Float64Array): { gain: number; values: Float64Array } {
  const { ref, d, red, small, smallSolution } = f;
  const { n, lo } = f.rows;
  small.reward.set(rr.subarray(0, ref + 1));
  small.time.set(tr.subarray(0, ref + 1));
  const sol = substituteOn(small, smallSolution.factor);
  const h = new Float64Array(n);
  h.set(sol.values);
  const g = sol.gain;
  for (let k = ref + 1; k < n; k++) {
    const base = k * lo - k + lo;
    let acc = rr[k] - g * tr[k];
    for (let j = Math.max(0, k - lo); j < k; j++) acc += red[base + j] * h[j];
    h[k] = acc / d[k];
  }
  return { gain: g, values: h };
}

/** ν: the censored chain's on 0..ref, then ν(k) = Σ_{i<k} ν(i)·f(i, k) upwards, by the same class sums; normalised, with its argmax. */
export function stationaryOf(f: GeometricFactor): { stationary: Float64Array; mode: number } {
  const { ref, cls, q, phi, psi, d } = f;
  const { n, tail } = f.rows;
  const C = q.length;
  const nu = new Float64Array(n);
  nu.set(f.smallSolution.stationary);
  // N_b = Σ_{i<k, class b} ν(i)·q_b^(k−i), Z_t = Σ_{i<k} ν(i)·tail_t(i).
  const N = new Float64Array(C);
  const Z = new Float64Array(3);
  const pass = (i: number): void => {
    const c = cls[i];
    for (let cc = 0; cc < C; cc++) N[cc] = q[cc] * (N[cc] + (cc === c ? nu[i] : 0));
    for (let t = 0; t < 3; t++) Z[t] += nu[i] * tail[i * 3 + t];
  };
  for (let i = 0; i <= ref; i++) pass(i);
  for (let k = ref + 1; k < n; k++) {
    let p = cls[k - 1] < 0 ? nu[k - 1] / d[k] : 0;
    for (let c = 0; c < C; c++) p += phi[k * C + c] * N[c];
    p += psi[k * 3] * Z[0] + psi[k * 3 + 1] * Z[1] + psi[k * 3 + 2] * Z[2];
    nu[k] = p;
    if (p > 1e200) {
      // A reference far out in a fast-decaying tail (chain.ts): scale down on the way.
      for (let x = 0; x <= k; x++) nu[x] /= 1e200;
      for (let c = 0; c < C; c++) N[c] /= 1e200;
      for (let t = 0; t < 3; t++) Z[t] /= 1e200;
    }
    pass(k);
  }
  let total = 0;
  let mode = 0;
  for (let x = 0; x < n; x++) {
    total += nu[x];
    if (nu[x] > nu[mode]) mode = x;
  }
  for (let x = 0; x < n; x++) nu[x] /= total;
  return { stationary: nu, mode };
}
