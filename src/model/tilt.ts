import type { Distribution } from './scenario.js';

/**
 * E[e^(−θT)·1{K = i}] for one service time T and K ~ Poisson(λT) arrivals during it, at complex θ
 * with Re θ ≥ 0 (docs/model.md §9). For the three laws it is the plain count pmf p(i) of
 * arrivals.ts times c·w^i:
 *   deterministic T = l:          c = e^(−θl), w = 1
 *   gamma (shape r = 1/cv², scale σ = l·cv²; exponential is r = 1):
 *     E[e^(−θT)(λT)^i e^(−λT)/i!] = p(i)·w^(i+r),  w = (1 + λσ)/(1 + λσ + θσ),  c = w^r
 * so the compiled model's pmfs are reused and only two complex numbers per (θ, b) are new.
 */
export interface Tilt {
  readonly cRe: number;
  readonly cIm: number;
  readonly wRe: number;
  readonly wIm: number;
}

export function isDeterministicLaw(dist: Distribution, cv: number): boolean {
  return dist === 'DETERMINISTIC' || cv === 0;
}

export function countTilt(dist: Distribution, cv: number, lambda: number, mean: number, thRe: number, thIm: number): Tilt {
  if (isDeterministicLaw(dist, cv)) {
    const m = Math.exp(-thRe * mean);
    return { cRe: m * Math.cos(thIm * mean), cIm: -m * Math.sin(thIm * mean), wRe: 1, wIm: 0 };
  }
  const r = 1 / (cv * cv);
  const sigma = mean * cv * cv;
  const base = 1 + lambda * sigma;
  // w = base / (base + θσ)
  const dRe = base + thRe * sigma;
  const dIm = thIm * sigma;
  const d2 = dRe * dRe + dIm * dIm;
  const wRe = (base * dRe) / d2;
  const wIm = (-base * dIm) / d2;
  const { re: cRe, im: cIm } = cpow(wRe, wIm, r);
  return { cRe, cIm, wRe, wIm };
}

/** E[e^(−θT)], the service time's own transform (λ = 0 in countTilt). */
export function serviceTransform(dist: Distribution, cv: number, mean: number, thRe: number, thIm: number): { re: number; im: number } {
  const t = countTilt(dist, cv, 0, mean, thRe, thIm);
  return { re: t.cRe, im: t.cIm };
}

/** z^r on the principal branch (Re z > 0 here, so it is the analytic continuation from real θ). */
export function cpow(re: number, im: number, r: number): { re: number; im: number } {
  const mod = Math.pow(re * re + im * im, r / 2);
  const arg = Math.atan2(im, re) * r;
  return { re: mod * Math.cos(arg), im: mod * Math.sin(arg) };
}
