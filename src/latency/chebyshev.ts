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

/** Coefficients of an antiderivative of Σ a_i T_i (∫T_i = T_{i+1}/(2(i+1)) − T_{i−1}/(2(i−1))). */
export function antiderivative(a: Float64Array): Float64Array {
  const n = a.length;
  const b = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    if (i === 0) b[1] += a[0];
    else if (i === 1) b[2] += a[1] / 4;
    else {
      b[i + 1] += a[i] / (2 * (i + 1));
      b[i - 1] -= a[i] / (2 * (i - 1));
    }
  }
  return b;
}

/** ∫₋₁¹ T_i(z) dz: 2/(1 − i²) for even i, 0 for odd. */
export function chebIntegral(i: number): number {
  return i % 2 === 1 ? 0 : 2 / (1 - i * i);
}

/** Σ a_i T_i(z) by Clenshaw's recurrence. */
export function clenshaw(a: Float64Array, z: number): number {
  let b1 = 0;
  let b2 = 0;
  const z2 = 2 * z;
  for (let i = a.length - 1; i >= 1; i--) {
    const b0 = z2 * b1 - b2 + a[i];
    b2 = b1;
    b1 = b0;
  }
  return z * b1 - b2 + a[0];
}

/** Barycentric interpolation at the block's Chebyshev points. */
export function interpolate(b: { readonly nodes: Float64Array; readonly bary: Float64Array }, rho: Float64Array, x: number): number {
  let num = 0;
  let den = 0;
  const { nodes, bary } = b;
  for (let c = 0; c < nodes.length; c++) {
    const d = x - nodes[c];
    if (d === 0) return rho[c];
    const w = bary[c] / d;
    num += w * rho[c];
    den += w;
  }
  return num / den;
}
