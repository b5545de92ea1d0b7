/**
 * An independent, deliberately naive evaluator for tiny scenarios: textbook pmf formulas,
 * a dense transition matrix lumped at N−1, and Gaussian elimination with partial pivoting
 * for the stationary distribution. Shares no code with src/.
 */
export interface TinyScenario {
  lambda: number;
  B: number;
  l: (b: number) => number;
  /** 'det' | 'exp' | gamma shape r = 1/cv². */
  law: 'det' | 'exp' | { cv: number };
  P: (b: number) => number;
  P0: number;
  wLat: number;
  wPow: number;
}

function pmfAt(t: TinyScenario, b: number, k: number): number {
  const mu = t.lambda * t.l(b);
  if (t.law === 'det') {
    let p = Math.exp(-mu);
    for (let i = 1; i <= k; i++) p *= mu / i;
    return p;
  }
  const cv = t.law === 'exp' ? 1 : t.law.cv;
  const r = 1 / (cv * cv);
  const q = (mu * cv * cv) / (1 + mu * cv * cv);
  let p = Math.pow(1 - q, r);
  for (let i = 0; i < k; i++) p *= ((i + r) / (i + 1)) * q;
  return p;
}

function m2(t: TinyScenario, b: number): number {
  const l = t.l(b);
  const cv = t.law === 'det' ? 0 : t.law === 'exp' ? 1 : t.law.cv;
  return l * l * (1 + cv * cv);
}

/** Average cost of a policy given by action(s) for every s ≥ 0. */
export function denseAverageCost(t: TinyScenario, action: (s: number) => number, N = 160): number {
  const P: number[][] = Array.from({ length: N }, () => new Array<number>(N).fill(0));
  const c = new Array<number>(N).fill(0);
  const y = new Array<number>(N).fill(0);
  for (let s = 0; s < N; s++) {
    const a = action(s);
    if (a === 0) {
      P[s][Math.min(s + 1, N - 1)] += 1;
      y[s] = 1 / t.lambda;
      c[s] = (t.wLat * s) / t.lambda ** 2 + (t.wPow * t.P0) / t.lambda;
    } else {
      let rest = 1;
      for (let k = 0; s - a + k < N - 1; k++) {
        const p = pmfAt(t, a, k);
        P[s][s - a + k] += p;
        rest -= p;
      }
      P[s][N - 1] += rest;
      const l = t.l(a);
      y[s] = l;
      c[s] = (t.wLat / t.lambda) * (s * l + (t.lambda * m2(t, a)) / 2) + t.wPow * t.P(a) * l;
    }
  }
  // π (I − P) = 0 with Σπ = 1: transpose, replace the last row by ones, solve.
  const A: Float64Array[] = Array.from({ length: N }, (_, i) => Float64Array.from({ length: N }, (_, j) => (i === j ? 1 : 0) - P[j][i]));
  const rhs = new Array<number>(N).fill(0);
  A[N - 1] = new Float64Array(N).fill(1);
  rhs[N - 1] = 1;
  const pi = gaussSolve(A, rhs);
  let num = 0;
  let den = 0;
  for (let s = 0; s < N; s++) {
    num += pi[s] * c[s];
    den += pi[s] * y[s];
  }
  return num / den;
}

/** Solves A·x = b by Gaussian elimination with partial pivoting (A and b are overwritten). */
export function gaussSolve(A: Float64Array[], b: number[]): number[] {
  const n = b.length;
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r][col]) > Math.abs(A[piv][col])) piv = r;
    [A[col], A[piv]] = [A[piv], A[col]];
    [b[col], b[piv]] = [b[piv], b[col]];
    for (let r = col + 1; r < n; r++) {
      const f = A[r][col] / A[col][col];
      if (f === 0) continue;
      const rowR = A[r];
      const rowC = A[col];
      for (let k = col; k < n; k++) rowR[k] -= f * rowC[k];
      b[r] -= f * b[col];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let acc = b[r];
    for (let k = r + 1; k < n; k++) acc -= A[r][k] * x[k];
    x[r] = acc / A[r][r];
  }
  return x;
}
