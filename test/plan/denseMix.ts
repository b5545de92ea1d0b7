import { deterministicGf, invertGf, vanLoanIntegral } from '../mmpp/reference.js';

/**
 * An independent, naive evaluator of randomised and switching policies for the mix tests:
 * a dense embedded chain on (queue, phase, mode) lumped at N−1, Gaussian elimination for its
 * stationary law. Deterministic service only. Poisson arrivals (one phase) use the textbook
 * pmf; MMPP arrivals the counting matrices by inverse DFT of exp(T(D0 + zD1)) and E[∫A] by
 * the Van Loan block exponential (test/mmpp/reference.ts). Shares no code with src/.
 *
 * m is the policy the current cycle follows. In `state` (a flat index s·M + j) a coin picks
 * m' = 0 with probability q (else 1) and the action of policy m'; elsewhere policy m acts.
 * Per-decision randomisation is the special case of two policies that differ only at `state`.
 */
export interface DenseSystem {
  /** Arrival rate per phase; one entry for Poisson arrivals. */
  readonly rates: readonly number[];
  /** Phase generator, row-major (zero for Poisson arrivals). */
  readonly Q: readonly number[];
  /** Mean (= deterministic) service time of a batch of b. */
  readonly l: (b: number) => number;
  readonly P: (b: number) => number;
  readonly P0: number;
}

export interface DenseFigures {
  readonly meanResponseTime: number;
  readonly meanPower: number;
}

/** Action of a policy at queue length s in phase j. */
export type DenseAction = (s: number, j: number) => number;

function poisson(mu: number, k: number): number {
  let p = Math.exp(-mu);
  for (let i = 1; i <= k; i++) p *= mu / i;
  return p;
}

type Branches = (s: number, j: number, m: number) => { action: number; prob: number; mode: number }[];

/** P(k arrivals, end in phase j' | start in phase j) during a batch of a, and E[∫A dt | j]. */
interface Counts {
  readonly count: (k: number, j: number, jj: number) => number;
  /** Σ_k of count: 1 for Poisson, e^{Q·l}[j][j'] for MMPP. */
  readonly total: (j: number, jj: number) => number;
  readonly hold: (j: number) => number;
}

function arrivalsDuring(t: DenseSystem, a: number, N: number): Counts {
  const l = t.l(a);
  const M = t.rates.length;
  if (M === 1) {
    const lam = t.rates[0];
    return { count: (k) => poisson(lam * l, k), total: () => 1, hold: () => (lam * l * l) / 2 };
  }
  const mmpp = { rates: [...t.rates], Q: [...t.Q] };
  const gf = deterministicGf(mmpp, l);
  const probs = invertGf(gf, M, 2 * N);
  const phaseChange = gf(1, 0).re;
  const integral = vanLoanIntegral(mmpp, l);
  return {
    count: (k, j, jj) => Math.max(0, probs[(k * M + j) * M + jj]),
    total: (j, jj) => phaseChange[j * M + jj],
    hold: (j) => integral[j],
  };
}

/** π of the phase generator (π_j ∝ mean holding time × the jump chain's stationary weight). */
function meanRate(t: DenseSystem): number {
  const M = t.rates.length;
  if (M === 1) return t.rates[0];
  const A = Array.from({ length: M }, (_, r) => Float64Array.from({ length: M }, (_, c) => t.Q[c * M + r]));
  const rhs = new Float64Array(M);
  A[M - 1] = new Float64Array(M).fill(1);
  rhs[M - 1] = 1;
  const pi = gauss(A, rhs);
  return t.rates.reduce((acc, r, j) => acc + r * pi[j], 0);
}

function solve(t: DenseSystem, N: number, branches: Branches): DenseFigures {
  const M = t.rates.length;
  const n = 2 * M * N;
  const idx = (s: number, j: number, m: number): number => (s * M + j) * 2 + m;
  const P: Float64Array[] = Array.from({ length: n }, () => new Float64Array(n));
  const H = new Float64Array(n);
  const Y = new Float64Array(n);
  const E = new Float64Array(n);
  const lbar = meanRate(t);
  const during = new Map<number, Counts>();
  for (let s = 0; s < N; s++) {
    for (let j = 0; j < M; j++) {
      for (let m = 0; m < 2; m++) {
        const i = idx(s, j, m);
        for (const br of branches(s, j, m)) {
          const a = br.action;
          if (a === 0) {
            const out = t.rates[j] - t.Q[j * M + j];
            P[i][idx(Math.min(s + 1, N - 1), j, br.mode)] += (br.prob * t.rates[j]) / out;
            for (let jj = 0; jj < M; jj++) if (jj !== j) P[i][idx(s, jj, br.mode)] += (br.prob * t.Q[j * M + jj]) / out;
            H[i] += (br.prob * s) / out;
            Y[i] += br.prob / out;
            E[i] += (br.prob * t.P0) / out;
            continue;
          }
          if (!during.has(a)) during.set(a, arrivalsDuring(t, a, N));
          const d = during.get(a)!;
          for (let jj = 0; jj < M; jj++) {
            let rest = d.total(j, jj);
            for (let k = 0; s - a + k < N - 1; k++) {
              const p = d.count(k, j, jj);
              P[i][idx(s - a + k, jj, br.mode)] += br.prob * p;
              rest -= p;
            }
            P[i][idx(N - 1, jj, br.mode)] += br.prob * rest;
          }
          const l = t.l(a);
          H[i] += br.prob * (s * l + d.hold(j));
          Y[i] += br.prob * l;
          E[i] += br.prob * t.P(a) * l;
        }
      }
    }
  }
  // π(I − P) = 0, Σπ = 1; states never entered (a mode that never starts) get π = 0 by the same equations.
  const A: Float64Array[] = Array.from({ length: n }, (_, r) => Float64Array.from({ length: n }, (_, c) => (r === c ? 1 : 0) - P[c][r]));
  const rhs = new Float64Array(n);
  A[n - 1] = new Float64Array(n).fill(1);
  rhs[n - 1] = 1;
  const pi = gauss(A, rhs);
  let h = 0;
  let y = 0;
  let e = 0;
  for (let i = 0; i < n; i++) {
    h += pi[i] * H[i];
    y += pi[i] * Y[i];
    e += pi[i] * E[i];
  }
  return { meanResponseTime: h / (lbar * y), meanPower: e / y };
}

function gauss(A: Float64Array[], b: Float64Array): Float64Array {
  const n = b.length;
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r][col]) > Math.abs(A[piv][col])) piv = r;
    [A[col], A[piv]] = [A[piv], A[col]];
    [b[col], b[piv]] = [b[piv], b[col]];
    const d = A[col][col];
    if (d === 0) continue; // an all-zero column: a state no one enters
    for (let r = 0; r < n; r++) {
      if (r === col || A[r][col] === 0) continue;
      const f = A[r][col] / d;
      for (let c = col; c < n; c++) A[r][c] -= f * A[col][c];
      b[r] -= f * b[col];
    }
  }
  return Float64Array.from(b, (v, i) => (A[i][i] === 0 ? 0 : v / A[i][i]));
}

/** Switch between policies a0 and a1 at the flat state `state` (probability q for a0), as described above. */
export function denseSwitchingMix(t: DenseSystem, a0: DenseAction, a1: DenseAction, state: number, q: number, N = 160): DenseFigures {
  const M = t.rates.length;
  return solve(t, N, (s, j, m) =>
    s * M + j === state
      ? [
          { action: a0(s, j), prob: q, mode: 0 },
          { action: a1(s, j), prob: 1 - q, mode: 1 },
        ]
      : [{ action: m === 0 ? a0(s, j) : a1(s, j), prob: 1, mode: m }],
  );
}

/** Toss a fresh coin at every decision: a0's action with probability q, else a1's (no memory). */
export function densePerDecisionMix(t: DenseSystem, a0: DenseAction, a1: DenseAction, q: number, N = 160): DenseFigures {
  return solve(t, N, (s, j) =>
    a0(s, j) === a1(s, j)
      ? [{ action: a0(s, j), prob: 1, mode: 0 }]
      : [
          { action: a0(s, j), prob: q, mode: 0 },
          { action: a1(s, j), prob: 1 - q, mode: 0 },
        ],
  );
}

/** The docs/model.md §6 system at rate λ (V100 fit, deterministic service, P(b) = 80 + 3b, P0 = 40). */
export function specSystem(lambda: number): DenseSystem {
  return { rates: [lambda], Q: [0], l: (b) => 0.0001438 * b + 0.0018874, P: (b) => 80 + 3 * b, P0: 40 };
}
