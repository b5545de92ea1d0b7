/**
 * Solves A·x = b for a small dense n×n system (row-major A) by Gaussian elimination with
 * partial pivoting; A and b are left as they are.
 */
export function solveDense(A: Float64Array, b: Float64Array, n: number): Float64Array {
  const M = A.slice();
  const x = b.slice();
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (Math.abs(M[i * n + k]) > Math.abs(M[p * n + k])) p = i;
    for (let j = 0; j < n; j++) [M[k * n + j], M[p * n + j]] = [M[p * n + j], M[k * n + j]];
    [x[k], x[p]] = [x[p], x[k]];
    for (let i = k + 1; i < n; i++) {
      const r = M[i * n + k] / M[k * n + k];
      for (let j = k; j < n; j++) M[i * n + j] -= r * M[k * n + j];
      x[i] -= r * x[k];
    }
  }
  for (let k = n - 1; k >= 0; k--) {
    for (let j = k + 1; j < n; j++) x[k] -= M[k * n + j] * x[j];
    x[k] /= M[k * n + k];
  }
  return x;
}
