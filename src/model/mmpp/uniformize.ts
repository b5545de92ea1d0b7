import { LimitError, throwIfAborted } from '../errors.js';
import { LIMITS } from '../limits.js';
import { PRUNE, sliceMass, trim, type MatSeq } from './matseq.js';
import type { MmppProcess } from './process.js';

/** A law of the number N of uniformization events: P(N = offset + i) = probs[i]. */
export interface EventLaw {
  readonly offset: number;
  readonly probs: Float64Array;
}

/**
 * Uniformization of the (count, phase) process at rate θ ≥ max_j (λ_j + q_j):
 *
 *   P_k = Σ_n P(N = n)·U_{n,k},   U_{n+1,k} = U_{n,k}·K0 + U_{n,k−1}·K1,   U_{0,0} = I,
 *   K0 = I + D0/θ ≥ 0,  K1 = D1/θ ≥ 0.
 *
 * Every term is non-negative: no cancellation at any rate. U does not depend on the law of N,
 * so one pass over n serves every law; each law accumulates while n is inside its window.
 * The (k) window of U_n is trimmed at both ends when a whole slice holds < 1e-20.
 * Cost: Σ_n (window of U_n)·M·(M + nnz(Q)) plus the accumulation.
 */
export function uniformize(proc: MmppProcess, theta: number, laws: readonly EventLaw[], signal?: AbortSignal): MatSeq[] {
  const M = proc.phases;
  const M2 = M * M;
  let steps = 0;
  for (const w of laws) steps = Math.max(steps, w.offset + w.probs.length - 1);
  const k = kernels(proc, theta);
  const X = new Float64Array((steps + 2) * M2);
  for (let j = 0; j < M; j++) X[j * M + j] = 1;
  let klo = 0;
  let khi = 0;
  const order = laws.map((_, i) => i).sort((a, b) => laws[a].offset - laws[b].offset);
  const out: MatSeq[] = new Array<MatSeq>(laws.length);
  const active: { law: number; from: number; last: number; acc: Float64Array }[] = [];
  let nextLaw = 0;
  let activeEntries = 0;
  const tmp = new Float64Array(M);
  for (let n = 0; n <= steps; n++) {
    if ((n & 63) === 0) throwIfAborted(signal);
    while (nextLaw < order.length && laws[order[nextLaw]].offset === n) {
      const law = order[nextLaw++];
      const last = laws[law].offset + laws[law].probs.length - 1;
      const entries = (last - klo + 1) * M2;
      activeEntries += entries;
      if (activeEntries > LIMITS.maxBandEntries) {
        throw new LimitError('arrivalProcess', `the counting matrices need more than ${LIMITS.maxBandEntries} entries at once`);
      }
      active.push({ law, from: klo, last, acc: new Float64Array(entries) });
    }
    for (let a = active.length - 1; a >= 0; a--) {
      const acc = active[a];
      const w = laws[acc.law];
      const weight = w.probs[n - w.offset];
      const src = klo * M2;
      const dst = (klo - acc.from) * M2;
      const len = (khi - klo + 1) * M2;
      const buf = acc.acc;
      for (let e = 0; e < len; e++) buf[dst + e] += weight * X[src + e];
      if (n === acc.last) {
        out[acc.law] = trim({ M, from: acc.from, slices: acc.last - acc.from + 1, data: buf });
        activeEntries -= buf.length;
        active.splice(a, 1);
      }
    }
    if (n === steps) break;
    step(X, klo, khi, M, k, tmp);
    khi++;
    while (klo < khi && sliceMass(X, klo, M2) < PRUNE) X.fill(0, klo * M2, ++klo * M2);
    while (khi > klo && sliceMass(X, khi, M2) < PRUNE) X.fill(0, khi * M2, khi-- * M2 + M2);
  }
  return out;
}

interface Kernels {
  /** K0 diagonal, 1 + (Q_cc − λ_c)/θ. */
  readonly diag: Float64Array;
  /** K0 off-diagonals by column c: rows inRow[inStart[c]..inStart[c+1]) with values inVal. */
  readonly inStart: Int32Array;
  readonly inRow: Int32Array;
  readonly inVal: Float64Array;
  /** K1 diagonal, λ_c/θ. */
  readonly arrive: Float64Array;
}

/** K0 is stored sparse by column: burst profiles and birth–death phase chains are mostly zeros. */
function kernels(proc: MmppProcess, theta: number): Kernels {
  const M = proc.phases;
  const Q = proc.generator;
  const diag = new Float64Array(M);
  const arrive = new Float64Array(M);
  const inStart = new Int32Array(M + 1);
  const rows: number[] = [];
  const vals: number[] = [];
  for (let c = 0; c < M; c++) {
    // λ_c + q_c ≤ θ, so this is ≥ 0 up to rounding (exactly 0 when M = 1 and θ = λ).
    diag[c] = Math.max(0, 1 + (Q[c * M + c] - proc.rates[c]) / theta);
    arrive[c] = proc.rates[c] / theta;
    inStart[c] = rows.length;
    for (let i = 0; i < M; i++) {
      if (i !== c && Q[i * M + c] > 0) {
        rows.push(i);
        vals.push(Q[i * M + c] / theta);
      }
    }
  }
  inStart[M] = rows.length;
  return { diag, arrive, inStart, inRow: Int32Array.from(rows), inVal: Float64Array.from(vals) };
}

/**
 * One step in place: slice k ← slice k·K0 + slice (k−1)·K1, for k from the top (khi + 1, still
 * zero) down to klo, so that slice k−1 is read before it is overwritten. Row r of a slice
 * depends only on row r of the old slices, so one row of scratch suffices.
 */
function step(X: Float64Array, klo: number, khi: number, M: number, k: Kernels, tmp: Float64Array): void {
  const M2 = M * M;
  const { diag, arrive, inStart, inRow, inVal } = k;
  for (let s = khi + 1; s >= klo; s--) {
    const base = s * M2;
    const prev = s > klo ? (s - 1) * M2 : -1;
    for (let r = 0; r < M; r++) {
      const row = base + r * M;
      for (let c = 0; c < M; c++) tmp[c] = X[row + c];
      for (let c = 0; c < M; c++) {
        let v = tmp[c] * diag[c];
        for (let e = inStart[c]; e < inStart[c + 1]; e++) v += tmp[inRow[e]] * inVal[e];
        if (prev >= 0) v += X[prev + r * M + c] * arrive[c];
        X[row + c] = v;
      }
    }
  }
}
