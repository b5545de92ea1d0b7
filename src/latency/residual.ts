import type { CompiledModel } from '../model/compile.js';
import { countTilt, isDeterministicLaw } from '../model/tilt.js';
import { gaussLegendre } from './gauss.js';

/**
 * The kernel of an arrival during a batch of b0 (docs/model.md §9, PASTA): for n arrivals in the
 * whole service of which i1 came before the tagged one,
 *   K(n, i1; θ) = E[∫₀^T Pois(i1; λx)·Pois(n − i1; λ(T − x))·e^(−θ(T − x)) dx]
 *              = ∫₀¹ Binom(i1; n, 1 − u)·E[T·Pois(n; λT)·e^(−θuT)] du   (residual V = uT).
 * The inner expectation is closed form per law: T·p(n)·e^(−θuT) deterministic, and for gamma
 * (shape r, scale σ) σ/(1 + λσ)·(n + r)·p(n)·w^(n + r + 1) with w of model/tilt.ts at θu — p the
 * compiled count pmf either way. The u-integral is Gauss–Legendre: exact (a polynomial) at θ = 0,
 * where the mean is taken, and for Re θ > 0 an entire (deterministic) or pole-free on [0, 1] (gamma)
 * integrand, with enough nodes for the oscillation e^(−iθuT).
 */
export interface ResidualTable {
  /** Largest n. */
  readonly top: number;
  /** [n·(top+1) + i1], complex. */
  readonly re: Float64Array;
  readonly im: Float64Array;
}

export function residualTable(model: CompiledModel, b: number, thRe: number, thIm: number, out?: ResidualTable): ResidualTable {
  const p = model.params;
  const lambda = model.rates[0];
  const T = p.meanService[b];
  const off = model.pmfOffset[b];
  const len = model.pmfLength[b];
  const start = model.pmfStart[b];
  const top = off + len - 1;
  const W = top + 1;
  const re = out && out.top === top ? out.re : new Float64Array(W * W);
  const im = out && out.top === top ? out.im : new Float64Array(W * W);
  re.fill(0);
  im.fill(0);
  const det = isDeterministicLaw(p.distribution, p.cv);
  const r = det ? 0 : 1 / (p.cv * p.cv);
  const sigma = det ? 0 : T * p.cv * p.cv;
  // Nodes: degree 2·top polynomial, plus the oscillation |θ|T (and λT for the Poisson factor).
  const G = Math.min(256, Math.max(8, Math.ceil(top / 2 + 0.75 * Math.hypot(thRe, thIm) * T + 12)));
  const { x: us, w: ws } = gaussLegendre(G);
  const binom = new Float64Array(W);
  for (let g = 0; g < G; g++) {
    const u = us[g];
    const q = 1 - u; // P(an arrival of the period came before the tagged one)
    const t = countTilt(p.distribution, p.cv, lambda, T, thRe * u, thIm * u);
    let cRe = t.cRe;
    let cIm = t.cIm;
    if (!det) {
      const a = cRe * t.wRe - cIm * t.wIm;
      cIm = cRe * t.wIm + cIm * t.wRe;
      cRe = a;
    }
    binom.fill(0);
    binom[0] = 1;
    // w^n as n runs
    let pRe = 1;
    let pIm = 0;
    for (let n = 0; n <= top; n++) {
      if (n > 0) {
        for (let i = n; i >= 1; i--) binom[i] = q * binom[i - 1] + u * binom[i];
        binom[0] *= u;
        const a = pRe * t.wRe - pIm * t.wIm;
        pIm = pRe * t.wIm + pIm * t.wRe;
        pRe = a;
      }
      if (n < off) continue;
      const pn = model.pmf[start + n - off];
      const base = det ? T * pn : (sigma / (1 + lambda * sigma)) * (n + r) * pn;
      const fRe = ws[g] * base * (cRe * pRe - cIm * pIm);
      const fIm = ws[g] * base * (cRe * pIm + cIm * pRe);
      const row = n * W;
      for (let i = 0; i <= n; i++) {
        re[row + i] += fRe * binom[i];
        im[row + i] += fIm * binom[i];
      }
    }
  }
  return { top, re, im };
}
