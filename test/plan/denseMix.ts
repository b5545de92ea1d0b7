/**
 * An independent, naive evaluator of randomised and switching policies for the mix tests:
 * Poisson pmfs from the textbook formula, a dense embedded chain lumped at N−1, Gaussian
 * elimination for its stationary law. Deterministic service only. Shares no code with src/.
 *
 * The chain is on (s, m): m is the policy the current cycle follows. In `state` a coin picks
 * m' = 0 with probability q (else 1) and the action of policy m'; elsewhere policy m acts.
 * Per-decision randomisation is the special case of two policies that differ only at `state`.
 */
export interface DenseSystem {
  readonly lambda: number;
  /** Mean (= deterministic) service time of a batch of b. */
  readonly l: (b: number) => number;
  readonly P: (b: number) => number;
  readonly P0: number;
}

export interface DenseFigures {
  readonly meanResponseTime: number;
  readonly meanPower: number;
}

function poisson(mu: number, k: number): number {
  let p = Math.exp(-mu);
  for (let i = 1; i <= k; i++) p *= mu / i;
  return p;
}

type Branches = (s: number, m: number) => { action: number; prob: number; mode: number }[];

function solve(t: DenseSystem, N: number, branches: Branches): DenseFigures {
  const n = 2 * N;
  const P: Float64Array[] = Array.from({ length: n }, () => new Float64Array(n));
  const H = new Float64Array(n);
  const Y = new Float64Array(n);
  const E = new Float64Array(n);
  for (let s = 0; s < N; s++) {
    for (let m = 0; m < 2; m++) {
      const i = 2 * s + m;
      for (const br of branches(s, m)) {
        const a = br.action;
        if (a === 0) {
          P[i][2 * Math.min(s + 1, N - 1) + br.mode] += br.prob;
          H[i] += (br.prob * s) / t.lambda;
          Y[i] += br.prob / t.lambda;
          E[i] += (br.prob * t.P0) / t.lambda;
          continue;
        }
        const l = t.l(a);
        let rest = 1;
        for (let k = 0; s - a + k < N - 1; k++) {
          const p = poisson(t.lambda * l, k);
          P[i][2 * (s - a + k) + br.mode] += br.prob * p;
          rest -= p;
        }
        P[i][2 * (N - 1) + br.mode] += br.prob * rest;
        H[i] += br.prob * (s * l + (t.lambda * l * l) / 2);
        Y[i] += br.prob * l;
        E[i] += br.prob * t.P(a) * l;
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
  return { meanResponseTime: h / (t.lambda * y), meanPower: e / y };
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

/** Switch between policies a0 and a1 at `state` (probability q for a0), as described above. */
export function denseSwitchingMix(t: DenseSystem, a0: (s: number) => number, a1: (s: number) => number, state: number, q: number, N = 160): DenseFigures {
  return solve(t, N, (s, m) =>
    s === state
      ? [
          { action: a0(s), prob: q, mode: 0 },
          { action: a1(s), prob: 1 - q, mode: 1 },
        ]
      : [{ action: m === 0 ? a0(s) : a1(s), prob: 1, mode: m }],
  );
}

/** Toss a fresh coin at every decision: a0's action with probability q, else a1's (no memory). */
export function densePerDecisionMix(t: DenseSystem, a0: (s: number) => number, a1: (s: number) => number, q: number, N = 160): DenseFigures {
  return solve(t, N, (s) =>
    a0(s) === a1(s)
      ? [{ action: a0(s), prob: 1, mode: 0 }]
      : [
          { action: a0(s), prob: q, mode: 0 },
          { action: a1(s), prob: 1 - q, mode: 0 },
        ],
  );
}

/** The docs/model.md §6 system at rate λ (V100 fit, deterministic service, P(b) = 80 + 3b, P0 = 40). */
export function specSystem(lambda: number): DenseSystem {
  return { lambda, l: (b) => 0.0001438 * b + 0.0018874, P: (b) => 80 + 3 * b, P0: 40 };
}
