/**
 * e^{G·t} for a Metzler matrix G (off-diagonals ≥ 0, e.g. a generator or the block matrices
 * of fitMoments.ts), n×n row-major.
 *
 * With c = max_i(−G_ii, 0), A = G + cI ≥ 0 and e^{Gh} = e^{−ch}·e^{Ah}. For h = t/2^s small,
 * e^{Gh} is a Taylor series of a non-negative matrix (all terms ≥ 0), and the s squarings
 * multiply non-negative matrices: no term is ever subtracted, so every entry keeps its relative
 * precision and nothing overflows even when c·t is in the thousands.
 */
export function expmMetzler(G: ArrayLike<number>, n: number, t: number): Float64Array {
  let c = 0;
  for (let i = 0; i < n; i++) c = Math.max(c, -G[i * n + i]);
  let norm = 0;
  for (let i = 0; i < n; i++) {
    let row = 0;
    for (let j = 0; j < n; j++) row += Math.abs(G[i * n + j] + (i === j ? c : 0));
    norm = Math.max(norm, row);
  }
  let s = 0;
  while (Math.max(norm, c) * t / 2 ** s > 0.5) s++;
  const h = t / 2 ** s;
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) A[i * n + j] = (G[i * n + j] + (i === j ? c : 0)) * h;
  // Taylor series of e^{A}: terms shrink at least by 1/2 per order; stop when they no longer change the sum.
  let term = identity(n);
  let sum = identity(n);
  for (let k = 1; k < 40; k++) {
    term = scale(matmul(term, A, n), 1 / k);
    let changed = false;
    for (let e = 0; e < n * n; e++) {
      const before = sum[e];
      sum[e] += term[e];
      if (sum[e] !== before) changed = true;
    }
    if (!changed) break;
  }
  let F = scale(sum, Math.exp(-c * h));
  for (let i = 0; i < s; i++) F = matmul(F, F, n);
  return F;
}

export function matmul(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const x = a[i * n + k];
      if (x === 0) continue;
      for (let j = 0; j < n; j++) out[i * n + j] += x * b[k * n + j];
    }
  }
  return out;
}

function identity(n: number): Float64Array {
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) m[i * n + i] = 1;
  return m;
}

function scale(a: Float64Array, f: number): Float64Array {
  for (let e = 0; e < a.length; e++) a[e] *= f;
  return a;
}
