import type { CompiledModel } from '../model/compile.js';
import { epochSojourn } from '../model/epoch.js';
import type { Policy } from '../policy/policy.js';
import { actionAt } from '../policy/policy.js';

/**
 * What a request arriving at a random moment finds, for exponential service (docs/model.md §9),
 * from the stationary law ν of the embedded chain over (s, j) epochs. An arrival sees the
 * time-stationary state weighted by λ_j/λ̄ (PASTA for Poisson, where λ_j/λ̄ = 1); with Y = Σν·y:
 *   - an epoch (s, j) that waits is "idle, s waiting, phase j" for y_j of time: weight
 *     ν(s, j)·y_j/Y·λ_j/λ̄; the arrival is then an epoch at level s + 1 with k = s ahead.
 *   - an epoch (s', j') that serves b: by memorylessness the state during the batch is (i1 arrivals
 *     since its start, phase j), and the expected time spent there is
 *     [(μ_b I − D0)^{-1}(D1 (μ_b I − D0)^{-1})^{i1}]_{j'j} (for Poisson (1/(λ+μ))(λ/(λ+μ))^{i1}).
 *     The arrival finds the batch of b in service with k = s' − b + i1 waiting ahead of it.
 * Points below `minMass` are dropped, and so is the tail of each i1-series past the terms kept:
 * both are counted in `dropped`, the latter as the exact total of the series, x·(μ_b I − Q)^{-1}·λ/λ̄,
 * minus what was kept.
 */
export interface EntryPoint {
  /** Requests waiting ahead of the arrival (not counting a batch in service). */
  readonly k: number;
  readonly j: number;
  /** 0: the server was idle (the arrival makes an epoch at level k + 1); b ≥ 1: a batch of b is in service. */
  readonly serving: number;
  readonly mass: number;
}

export interface UniformEntry {
  readonly points: EntryPoint[];
  /** Σ of the kept masses. */
  readonly kept: number;
  /** Mass dropped (small points, series tails): kept + dropped = 1 up to rounding and ν's own truncation. */
  readonly dropped: number;
  /** The largest k of a kept point. */
  readonly maxAhead: number;
}

export const ENTRY_MIN_MASS = 1e-16;
/** A series term below this stops the i1-series (its tail is then counted, not lost). */
const SERIES_STOP = 1e-20;

export function uniformEntry(model: CompiledModel, policy: Policy, nu: Float64Array, levels: number, minMass = ENTRY_MIN_MASS): UniformEntry {
  const { M, params: p, process: proc } = model;
  const lam = proc.rates;
  const lbar = proc.meanRate;
  let Y = 0;
  for (let s = 0; s < levels; s++) for (let j = 0; j < M; j++) Y += nu[s * M + j] * epochSojourn(p, proc, actionAt(policy, s, j), j);
  const points: EntryPoint[] = [];
  let kept = 0;
  let dropped = 0;
  let maxAhead = 0;
  const add = (k: number, j: number, serving: number, mass: number): void => {
    if (mass < minMass) {
      dropped += mass;
      return;
    }
    points.push({ k, j, serving, mass });
    kept += mass;
    maxAhead = Math.max(maxAhead, k);
  };
  for (let s = 0; s < levels; s++) {
    for (let j = 0; j < M; j++) {
      if (actionAt(policy, s, j) !== 0) continue;
      add(s, j, 0, (nu[s * M + j] * epochSojourn(p, proc, 0, j) * lam[j]) / (Y * lbar));
    }
  }
  const kernels = new Map<number, BatchKernel>();
  const x = new Float64Array(M);
  const v = new Float64Array(M);
  const w = new Float64Array(M);
  for (let s = 1; s < levels; s++) {
    // Each batch size served at level s (per phase it may differ) is one series from r0 = s − b.
    for (let b = 1; b <= Math.min(s, model.B); b++) {
      let any = false;
      for (let j = 0; j < M; j++) {
        x[j] = actionAt(policy, s, j) === b ? nu[s * M + j] / Y : 0;
        any ||= x[j] > 0;
      }
      if (!any) continue;
      let K = kernels.get(b);
      if (!K) kernels.set(b, (K = batchKernel(model, b)));
      let total = 0;
      vecMat(x, K.total, w, M);
      for (let j = 0; j < M; j++) total += (w[j] * lam[j]) / lbar;
      vecMat(x, K.first, v, M);
      let series = 0;
      for (let i1 = 0; ; i1++) {
        let term = 0;
        for (let j = 0; j < M; j++) {
          const m = (v[j] * lam[j]) / lbar;
          term += m;
          add(s - b + i1, j, b, m);
        }
        series += term;
        if (term < SERIES_STOP && i1 > 0) break;
        vecMat(v, K.step, w, M);
        v.set(w);
      }
      dropped += Math.max(0, total - series);
    }
  }
  return { points, kept, dropped, maxAhead };
}

/** R = (μ_b I − D0)^{-1}: `first` = R, `step` = D1·R, `total` = (μ_b I − Q)^{-1} (the whole series). */
interface BatchKernel {
  readonly first: Float64Array;
  readonly step: Float64Array;
  readonly total: Float64Array;
}

function batchKernel(model: CompiledModel, b: number): BatchKernel {
  const M = model.M;
  const Q = model.process.generator;
  const lam = model.process.rates;
  const mu = 1 / model.params.meanService[b];
  const A = new Float64Array(M * M);
  const T = new Float64Array(M * M);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < M; j++) {
      const d = i === j ? mu : 0;
      A[i * M + j] = d - Q[i * M + j] + (i === j ? lam[i] : 0);
      T[i * M + j] = d - Q[i * M + j];
    }
  }
  const first = invert(A, M);
  const step = new Float64Array(M * M);
  for (let i = 0; i < M; i++) for (let j = 0; j < M; j++) step[i * M + j] = lam[i] * first[i * M + j];
  return { first, step, total: invert(T, M) };
}

/** out = x·A (row vector times M×M). */
function vecMat(x: Float64Array, A: Float64Array, out: Float64Array, M: number): void {
  for (let j = 0; j < M; j++) {
    let acc = 0;
    for (let i = 0; i < M; i++) acc += x[i] * A[i * M + j];
    out[j] = acc;
  }
}

/** Gauss–Jordan with partial pivoting; the matrices here are M-matrices of order ≤ 8. */
function invert(A0: Float64Array, M: number): Float64Array {
  const A = Float64Array.from(A0);
  const X = new Float64Array(M * M);
  for (let i = 0; i < M; i++) X[i * M + i] = 1;
  for (let c = 0; c < M; c++) {
    let piv = c;
    for (let r = c + 1; r < M; r++) if (Math.abs(A[r * M + c]) > Math.abs(A[piv * M + c])) piv = r;
    if (piv !== c) {
      for (let j = 0; j < M; j++) {
        [A[c * M + j], A[piv * M + j]] = [A[piv * M + j], A[c * M + j]];
        [X[c * M + j], X[piv * M + j]] = [X[piv * M + j], X[c * M + j]];
      }
    }
    const d = A[c * M + c];
    for (let j = 0; j < M; j++) {
      A[c * M + j] /= d;
      X[c * M + j] /= d;
    }
    for (let r = 0; r < M; r++) {
      const f = A[r * M + c];
      if (r === c || f === 0) continue;
      for (let j = 0; j < M; j++) {
        A[r * M + j] -= f * A[c * M + j];
        X[r * M + j] -= f * X[c * M + j];
      }
    }
  }
  return X;
}
