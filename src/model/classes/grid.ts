/**
 * Boxes of values over n = (n_1, …, n_C), flat with the last class fastest, and the quadratic
 * tail extrapolation of docs/model.md §4 along every axis past its top:
 *   h(…, S+m, …) ≈ h(S) + m·Δ1 + m(m+1)/2·Δ2 = (1 + m + q)·h(S) − (m + 2q)·h(S−1) + q·h(S−2),  q = m(m+1)/2,
 * applied axis after axis, so that a point past the top of several axes gets the tensor product
 * of the one-axis rules (the extrapolation is linear, and the order of the axes does not matter).
 */

export function stridesOf(dims: ArrayLike<number>): Int32Array {
  const C = dims.length;
  const st = new Int32Array(C);
  let s = 1;
  for (let a = C - 1; a >= 0; a--) {
    st[a] = s;
    s *= dims[a];
  }
  return st;
}

/** The coordinates n of flat index x in a box of `dims` (last axis fastest). */
export function coordsOf(x: number, dims: ArrayLike<number>): Int32Array {
  const n = new Int32Array(dims.length);
  for (let a = dims.length - 1; a >= 0; a--) {
    n[a] = x % dims[a];
    x = Math.floor(x / dims[a]);
  }
  return n;
}

export function sizeOf(dims: ArrayLike<number>): number {
  let s = 1;
  for (let a = 0; a < dims.length; a++) s *= dims[a];
  return s;
}

/**
 * Writes into `dst` (a box of `dstDims`) the values of `src` (a box of top levels `srcTop`, dims
 * srcTop + 1) where they exist, extrapolated past each axis's top where they do not (every
 * srcTop_c ≥ 2; a dst axis shorter than src is cut).
 */
export function extendBox(src: Float64Array, srcTop: ArrayLike<number>, dst: Float64Array, dstDims: ArrayLike<number>): void {
  const C = dstDims.length;
  const sSt = stridesOf(Array.from(srcTop, (t) => t + 1));
  const dSt = stridesOf(dstDims);
  const n = sizeOf(dstDims);
  const i = new Int32Array(C);
  // Pass 0: copy; then one pass per axis a over the points past its top (axes after a within their tops).
  for (let pass = -1; pass < C; pass++) {
    i.fill(0);
    for (let x = 0; x < n; x++) {
      if (x > 0) for (let a = C - 1; a >= 0 && ++i[a] === dstDims[a]; a--) i[a] = 0;
      let inside = true;
      for (let a = 0; a < C; a++) if (a !== pass && (pass < 0 || a > pass) && i[a] > srcTop[a]) inside = false;
      if (!inside) continue;
      if (pass < 0) {
        let at = 0;
        for (let a = 0; a < C; a++) at += i[a] * sSt[a];
        dst[x] = src[at];
        continue;
      }
      const top = srcTop[pass];
      const m = i[pass] - top;
      if (m <= 0) continue;
      const q = (m * (m + 1)) / 2;
      const base = x - m * dSt[pass];
      const st = dSt[pass];
      dst[x] = (1 + m + q) * dst[base] - (m + 2 * q) * dst[base - st] + q * dst[base - 2 * st];
    }
  }
}

/**
 * Writes into `dst` (a box of `dstDims`) the values of `src` (a box of top levels `srcTop`) at
 * each point clamped onto the source box: the overflow past a top lumped at that top. Every row
 * of the transformed model then stays stochastic (the fallback of docs/model.md §10 when the
 * extrapolated rows make value iteration diverge).
 */
export function clampBox(src: Float64Array, srcTop: ArrayLike<number>, dst: Float64Array, dstDims: ArrayLike<number>): void {
  const C = dstDims.length;
  const sSt = stridesOf(Array.from(srcTop, (t) => t + 1));
  const n = sizeOf(dstDims);
  const i = new Int32Array(C);
  for (let x = 0; x < n; x++) {
    if (x > 0) for (let a = C - 1; a >= 0 && ++i[a] === dstDims[a]; a--) i[a] = 0;
    let at = 0;
    for (let a = 0; a < C; a++) at += Math.min(i[a], srcTop[a]) * sSt[a];
    dst[x] = src[at];
  }
}
