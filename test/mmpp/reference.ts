/**
 * Test-only independent references for the MMPP counting matrices, sharing no code with src/:
 * complex M×M matrices, a scaling-and-squaring Taylor exponential, Gaussian elimination with
 * partial pivoting, and inversion of a matrix generating function by the discrete Fourier
 * transform on the unit circle.
 *
 *   deterministic T:      Σ_k P_k z^k = exp(T·(D0 + z·D1))
 *   exponential T (rate μ):             μ·(μI − D0 − z·D1)⁻¹
 *   gamma T, integer shape r, scale θ:  (I − θ·(D0 + z·D1))^(−r)
 */
export interface CMat {
  readonly n: number;
  readonly re: Float64Array;
  readonly im: Float64Array;
}

export function cmat(n: number): CMat {
  return { n, re: new Float64Array(n * n), im: new Float64Array(n * n) };
}

export function cidentity(n: number): CMat {
  const m = cmat(n);
  for (let i = 0; i < n; i++) m.re[i * n + i] = 1;
  return m;
}

export function cmul(a: CMat, b: CMat): CMat {
  const n = a.n;
  const out = cmat(n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const xr = a.re[i * n + k];
      const xi = a.im[i * n + k];
      for (let j = 0; j < n; j++) {
        out.re[i * n + j] += xr * b.re[k * n + j] - xi * b.im[k * n + j];
        out.im[i * n + j] += xr * b.im[k * n + j] + xi * b.re[k * n + j];
      }
    }
  }
  return out;
}

function norm1(a: CMat): number {
  let best = 0;
  for (let i = 0; i < a.n; i++) {
    let row = 0;
    for (let j = 0; j < a.n; j++) row += Math.hypot(a.re[i * a.n + j], a.im[i * a.n + j]);
    best = Math.max(best, row);
  }
  return best;
}

/** e^A by scaling to ‖A‖ ≤ 1/4, a 30-term Taylor series and squaring. */
export function cexpm(a: CMat): CMat {
  const n = a.n;
  let s = 0;
  while (norm1(a) / 2 ** s > 0.25) s++;
  const f = 1 / 2 ** s;
  const A: CMat = { n, re: a.re.map((v) => v * f), im: a.im.map((v) => v * f) };
  let term = cidentity(n);
  const sum = cidentity(n);
  for (let k = 1; k <= 30; k++) {
    term = cmul(term, A);
    for (let e = 0; e < n * n; e++) {
      term.re[e] /= k;
      term.im[e] /= k;
      sum.re[e] += term.re[e];
      sum.im[e] += term.im[e];
    }
  }
  let out = sum;
  for (let i = 0; i < s; i++) out = cmul(out, out);
  return out;
}

/** A⁻¹ by Gauss–Jordan elimination with partial pivoting. */
export function cinv(a: CMat): CMat {
  const n = a.n;
  const re = Float64Array.from(a.re);
  const im = Float64Array.from(a.im);
  const inv = cidentity(n);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.hypot(re[r * n + c], im[r * n + c]) > Math.hypot(re[p * n + c], im[p * n + c])) p = r;
    for (const [x, y] of [
      [re, im],
      [inv.re, inv.im],
    ] as const) {
      for (let j = 0; j < n; j++) {
        [x[c * n + j], x[p * n + j]] = [x[p * n + j], x[c * n + j]];
        [y[c * n + j], y[p * n + j]] = [y[p * n + j], y[c * n + j]];
      }
    }
    const dr = re[c * n + c];
    const di = im[c * n + c];
    const d2 = dr * dr + di * di;
    const ir = dr / d2;
    const ii = -di / d2;
    for (const [x, y] of [
      [re, im],
      [inv.re, inv.im],
    ] as const) {
      for (let j = 0; j < n; j++) {
        const xr = x[c * n + j];
        const xi = y[c * n + j];
        x[c * n + j] = xr * ir - xi * ii;
        y[c * n + j] = xr * ii + xi * ir;
      }
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const fr = re[r * n + c];
      const fi = im[r * n + c];
      for (const [x, y] of [
        [re, im],
        [inv.re, inv.im],
      ] as const) {
        for (let j = 0; j < n; j++) {
          const xr = x[c * n + j];
          const xi = y[c * n + j];
          x[r * n + j] -= fr * xr - fi * xi;
          y[r * n + j] -= fr * xi + fi * xr;
        }
      }
    }
  }
  return inv;
}

export interface Mmpp {
  readonly rates: number[];
  /** Row-major M×M. */
  readonly Q: number[];
}

/** D0 + z·D1 scaled by `t`, for z = zr + i·zi. */
export function symbol(p: Mmpp, zr: number, zi: number, t: number): CMat {
  const M = p.rates.length;
  const a = cmat(M);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < M; j++) a.re[i * M + j] = p.Q[i * M + j] * t;
    a.re[i * M + i] += (zr - 1) * p.rates[i] * t;
    a.im[i * M + i] += zi * p.rates[i] * t;
  }
  return a;
}

export type GeneratingFunction = (zr: number, zi: number) => CMat;

export function deterministicGf(p: Mmpp, T: number): GeneratingFunction {
  return (zr, zi) => cexpm(symbol(p, zr, zi, T));
}

/** Gamma T with integer shape r and mean l (r = 1: exponential). */
export function erlangGf(p: Mmpp, l: number, r: number): GeneratingFunction {
  return (zr, zi) => {
    const a = symbol(p, zr, zi, -l / r);
    for (let i = 0; i < a.n; i++) a.re[i * a.n + i] += 1;
    const inv = cinv(a);
    let out = inv;
    for (let k = 1; k < r; k++) out = cmul(out, inv);
    return out;
  };
}

/**
 * Entries P_k[j][j'] for k = 0..L−1 by the inverse DFT of the generating function at the L-th
 * roots of unity; exact up to aliasing by the mass at k ≥ L (choose L past the support).
 * Returns probs[(k·M + j)·M + j'].
 */
export function invertGf(gf: GeneratingFunction, M: number, L: number): Float64Array {
  const vals: CMat[] = [];
  for (let l = 0; l < L; l++) vals.push(gf(Math.cos((2 * Math.PI * l) / L), Math.sin((2 * Math.PI * l) / L)));
  const out = new Float64Array(L * M * M);
  for (let k = 0; k < L; k++) {
    for (let e = 0; e < M * M; e++) {
      let acc = 0;
      for (let l = 0; l < L; l++) {
        const ang = (-2 * Math.PI * ((k * l) % L)) / L;
        acc += vals[l].re[e] * Math.cos(ang) - vals[l].im[e] * Math.sin(ang);
      }
      out[k * M * M + e] = acc / L;
    }
  }
  return out;
}

/** ∫₀^T (T − u)·e^{Qu}λ du as block (1,3) of exp of [[Q, λ, 0], [0, 0, 1], [0, 0, 0]]·T (Van Loan). */
export function vanLoanIntegral(p: Mmpp, T: number): number[] {
  const M = p.rates.length;
  const n = M + 2;
  const a = cmat(n);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < M; j++) a.re[i * n + j] = p.Q[i * M + j] * T;
    a.re[i * n + M] = p.rates[i] * T;
  }
  a.re[M * n + M + 1] = T;
  const e: CMat = cexpm(a);
  return p.rates.map((_, i) => e.re[i * n + M + 1]);
}

