import type { CompiledModel } from '../model/compile.js';
import { epochSojourn } from '../model/epoch.js';
import type { Policy } from '../policy/policy.js';
import { actionAt } from '../policy/policy.js';
import { grown } from './grown.js';

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
 * The masses landing on one point (k, j, serving) are summed; points below `minMass` are then
 * dropped, and so is the tail of each i1-series past the terms kept: both are counted in
 * `dropped`, the latter as the exact total of the series, x·(μ_b I − Q)^{-1}·λ/λ̄,
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
/** Past its last source level, a batch size's summed series stops at a term below this (its tail is then counted, not lost). */
const SERIES_STOP = 1e-20;

export function uniformEntry(model: CompiledModel, policy: Policy, nu: Float64Array, levels: number, minMass = ENTRY_MIN_MASS): UniformEntry {
  const { M, params: p, process: proc } = model;
  const lam = proc.rates;
  const lbar = proc.meanRate;
  // The action at every (level, phase), once: the sojourns, the idle points and the series read it.
  const act = new Int32Array(levels * M);
  for (let s = 0; s < levels; s++) for (let j = 0; j < M; j++) act[s * M + j] = actionAt(policy, s, j);
  let Y = 0;
  for (let s = 0; s < levels; s++) for (let j = 0; j < M; j++) Y += nu[s * M + j] * epochSojourn(p, proc, act[s * M + j], j);
  // Masses summed per (k, serving, j) before any is kept or dropped: the series of many levels land
  // on the same points (near capacity millions of terms on some ten thousand points).
  const width = (model.B + 1) * M;
  let acc = new Float64Array(Math.max(levels, 1) * width);
  const add = (k: number, j: number, serving: number, mass: number): void => {
    const at = k * width + serving * M + j;
    if (at >= acc.length) {
      acc = grown(acc, Math.max(2 * acc.length, at + width));
    }
    acc[at] += mass;
  };
  for (let s = 0; s < levels; s++) {
    for (let j = 0; j < M; j++) {
      if (act[s * M + j] !== 0) continue;
      add(s, j, 0, (nu[s * M + j] * epochSojourn(p, proc, 0, j) * lam[j]) / (Y * lbar));
    }
  }
  // The series of every level that serves b, summed: with x_b(s) = ν(s, ·)/Y where s serves b,
  // the arrivals finding k ahead during a batch of b weigh w_k = w_{k−1}·step + x_b(k + b)·first,
  // one pass over k for each b rather than one series per level (O(levels) instead of
  // O(levels × series length), which near capacity is thousands).
  let seriesLost = 0;
  const first = new Int32Array(model.B + 1).fill(-1);
  const last = new Int32Array(model.B + 1).fill(-1);
  for (let s = 1; s < levels; s++) {
    for (let j = 0; j < M; j++) {
      const b = act[s * M + j];
      if (b === 0) continue;
      if (first[b] < 0) first[b] = s;
      last[b] = s;
    }
  }
  const x = new Float64Array(M);
  const v = new Float64Array(M);
  const w = new Float64Array(M);
  const u = new Float64Array(M);
  for (let b = 1; b <= model.B; b++) {
    if (first[b] < 0) continue;
    const K = batchKernel(model, b);
    let total = 0;
    let series = 0;
    v.fill(0);
    for (let k = first[b] - b; ; k++) {
      const s = k + b;
      const sources = s <= last[b];
      if (sources) {
        for (let j = 0; j < M; j++) x[j] = act[s * M + j] === b ? nu[s * M + j] / Y : 0;
        vecMat(x, K.total, u, M);
        for (let j = 0; j < M; j++) total += (u[j] * lam[j]) / lbar;
        vecMat(x, K.first, u, M);
      }
      vecMat(v, K.step, w, M);
      let term = 0;
      for (let j = 0; j < M; j++) {
        v[j] = w[j] + (sources ? u[j] : 0);
        const m = (v[j] * lam[j]) / lbar;
        term += m;
        if (m > 0) add(k, j, b, m);
      }
      series += term;
      if (!sources && term < SERIES_STOP) break;
    }
    seriesLost += Math.max(0, total - series);
  }
  return collect(acc, width, M, minMass, seriesLost);
}

/** The points of the summed masses: those below minMass are dropped (and counted). */
function collect(acc: Float64Array, width: number, M: number, minMass: number, seriesLost: number): UniformEntry {
  const points: EntryPoint[] = [];
  let kept = 0;
  let dropped = seriesLost;
  let maxAhead = 0;
  for (let at = 0; at < acc.length; at++) {
    const mass = acc[at];
    if (mass === 0) continue;
    if (mass < minMass) {
      dropped += mass;
      continue;
    }
    const k = Math.floor(at / width);
    const rest = at - k * width;
    points.push({ k, j: rest % M, serving: Math.floor(rest / M), mass });
    kept += mass;
    maxAhead = Math.max(maxAhead, k);
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
