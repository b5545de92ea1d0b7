/** Chebyshev interpolation on [0, L] at the points x_c = L(1 − cos(πc/Q))/2: series, antiderivative, evaluation. */

/**
 * Chebyshev coefficients of the interpolant through values at z_c = −cos(πc/Q), c = 0..Q
 * (the block's points in z = 2x/l(b0) − 1): a discrete cosine transform of type I, as a matrix.
 */
export function chebyshevMatrix(Q: number): Float64Array {
  const m = new Float64Array((Q + 1) * (Q + 1));
  for (let i = 0; i <= Q; i++) {
    for (let c = 0; c <= Q; c++) {
      // z_c = cos(π(Q − c)/Q), so T_i(z_c) = cos(πi(Q − c)/Q)
      const w = c === 0 || c === Q ? 0.5 : 1;
      m[i * (Q + 1) + c] = ((i === 0 || i === Q ? 1 : 2) * w * Math.cos((Math.PI * i * (Q - c)) / Q)) / Q;
    }
  }
  return m;
}

/**
 * Coefficients of an antiderivative of Σ a_i T_i (∫T_i = T_{i+1}/(2(i+1)) − T_{i−1}/(2(i−1))), the
 * n coefficients a[from..from + n) written to out[to..to + n + 1) (which must hold zeros).
 */
export function antiderivative(a: Float64Array, from: number, n: number, out: Float64Array, to: number): void {
  for (let i = 0; i < n; i++) {
    const v = a[from + i];
    if (i === 0) out[to + 1] += v;
    else if (i === 1) out[to + 2] += v / 4;
    else {
      out[to + i + 1] += v / (2 * (i + 1));
      out[to + i - 1] -= v / (2 * (i - 1));
    }
  }
}

/** ∫₋₁¹ T_i(z) dz: 2/(1 − i²) for even i, 0 for odd. */
export function chebIntegral(i: number): number {
  return i % 2 === 1 ? 0 : 2 / (1 - i * i);
}

/** Σ a_i T_i(z) over the n coefficients a[from..from + n), by Clenshaw's recurrence. */
export function clenshaw(a: Float64Array, z: number, from = 0, n = a.length - from): number {
  let b1 = 0;
  let b2 = 0;
  const z2 = 2 * z;
  for (let i = from + n - 1; i > from; i--) {
    const b0 = z2 * b1 - b2 + a[i];
    b2 = b1;
    b1 = b0;
  }
  return z * b1 - b2 + a[from];
}

/**
 * clenshaw at the m points z[0..m), into out: four recurrences at a time, independent of each other,
 * so that they overlap in the pipeline (one alone waits on its own previous step at every coefficient).
 * A last group of fewer than four repeats its last point.
 */
export function clenshawMany(a: Float64Array, from: number, n: number, z: Float64Array, out: Float64Array, m: number): void {
  const a0 = a[from];
  for (let g = 0; g < m; g += 4) {
    const g1 = Math.min(g + 1, m - 1);
    const g2 = Math.min(g + 2, m - 1);
    const g3 = Math.min(g + 3, m - 1);
    const y0 = 2 * z[g];
    const y1 = 2 * z[g1];
    const y2 = 2 * z[g2];
    const y3 = 2 * z[g3];
    let p0 = 0;
    let p1 = 0;
    let p2 = 0;
    let p3 = 0;
    let q0 = 0;
    let q1 = 0;
    let q2 = 0;
    let q3 = 0;
    for (let i = from + n - 1; i > from; i--) {
      const ai = a[i];
      const r0 = y0 * p0 - q0 + ai;
      const r1 = y1 * p1 - q1 + ai;
      const r2 = y2 * p2 - q2 + ai;
      const r3 = y3 * p3 - q3 + ai;
      q0 = p0;
      q1 = p1;
      q2 = p2;
      q3 = p3;
      p0 = r0;
      p1 = r1;
      p2 = r2;
      p3 = r3;
    }
    out[g] = z[g] * p0 - q0 + a0;
    out[g1] = z[g1] * p1 - q1 + a0;
    out[g2] = z[g2] * p2 - q2 + a0;
    out[g3] = z[g3] * p3 - q3 + a0;
  }
}
