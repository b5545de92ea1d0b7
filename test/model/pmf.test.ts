import { describe, expect, it } from 'vitest';
import { arrivalPmf, pmfMoments, TAIL_CUT } from '../../src/model/arrivals.js';

/** Direct Poisson pmf by the textbook product formula (fine for small means). */
function poissonDirect(mu: number, k: number): number {
  let p = Math.exp(-mu);
  for (let i = 1; i <= k; i++) p *= mu / i;
  return p;
}

/** Direct negative-binomial pmf: Γ(k+r)/(k!Γ(r)) q^k (1−q)^r, by the product form. */
function negBinDirect(r: number, q: number, k: number): number {
  let p = Math.pow(1 - q, r);
  for (let i = 0; i < k; i++) p *= ((i + r) / (i + 1)) * q;
  return p;
}

const at = (pmf: ReturnType<typeof arrivalPmf>, k: number): number => {
  const i = k - pmf.offset;
  return i >= 0 && i < pmf.probs.length ? pmf.probs[i] : 0;
};

describe('arrival-count pmfs', () => {
  const cases: Array<[string, 'DETERMINISTIC' | 'EXPONENTIAL' | 'GAMMA', number]> = [
    ['deterministic', 'DETERMINISTIC', 0],
    ['exponential', 'EXPONENTIAL', 1],
    ['gamma cv=0.3', 'GAMMA', 0.3],
    ['gamma cv=0.7', 'GAMMA', 0.7],
    ['gamma cv=2', 'GAMMA', 2],
  ];
  for (const [name, dist, cv] of cases) {
    for (const mu of [1e-6, 0.3, 5, 37.5, 800, 1e4]) {
      it(`${name}, λ·l = ${mu}: sums to 1, mean λ·l, second moment λl + λ²m2`, () => {
        const lambda = 1000;
        const l = mu / lambda;
        const m2 = l * l * (1 + cv * cv);
        const pmf = arrivalPmf(dist, lambda, l, m2, cv);
        const m = pmfMoments(pmf);
        expect(Math.abs(m.mass - 1)).toBeLessThan(1e-13);
        expect(Math.abs(m.mean - mu) / Math.max(mu, 1e-300)).toBeLessThan(1e-10);
        const second = mu + lambda * lambda * m2;
        expect(Math.abs(m.second - second) / second).toBeLessThan(1e-9);
        expect(Math.min(...pmf.probs.subarray(0, 100_000))).toBeGreaterThanOrEqual(0);
      });
    }
  }

  it('deterministic equals the Poisson pmf term by term', () => {
    for (const mu of [0.5, 4, 20]) {
      const pmf = arrivalPmf('DETERMINISTIC', mu, 1, 1, 0);
      for (let k = 0; k < 60; k++) {
        const ref = poissonDirect(mu, k);
        if (ref > 1e-12) expect(Math.abs(at(pmf, k) - ref) / ref).toBeLessThan(1e-12);
      }
    }
  });

  it('gamma is negative binomial term by term', () => {
    const lambda = 50;
    const l = 0.2;
    const cv = 0.7;
    const r = 1 / (cv * cv);
    const q = (lambda * l * cv * cv) / (1 + lambda * l * cv * cv);
    const pmf = arrivalPmf('GAMMA', lambda, l, l * l * (1 + cv * cv), cv);
    for (let k = 0; k < 80; k++) {
      const ref = negBinDirect(r, q, k);
      if (ref > 1e-12) expect(Math.abs(at(pmf, k) - ref) / ref).toBeLessThan(1e-11);
    }
  });

  it('gamma with cv = 1 equals exponential (geometric)', () => {
    const g = arrivalPmf('GAMMA', 3000, 0.004, 2 * 0.004 * 0.004, 1);
    const e = arrivalPmf('EXPONENTIAL', 3000, 0.004, 2 * 0.004 * 0.004, 1);
    expect(g.offset).toBe(e.offset);
    expect(g.probs.length).toBe(e.probs.length);
    const mu = 12;
    for (let i = 0; i < g.probs.length; i++) {
      expect(g.probs[i]).toBeCloseTo(e.probs[i], 15);
      if (i < 100) {
        const geo = Math.pow(mu / (1 + mu), i) / (1 + mu);
        expect(Math.abs(e.probs[i] - geo) / geo).toBeLessThan(1e-11);
      }
    }
  });

  it('stays finite and cut at λ·l = 10⁴ (no under- or overflow), mass within the cut of the mode region', () => {
    const pmf = arrivalPmf('DETERMINISTIC', 1e4, 1, 1, 0);
    expect(pmf.offset).toBeGreaterThan(9000);
    expect(pmf.offset + pmf.probs.length).toBeLessThan(11000);
    expect(pmf.probs.every((v) => Number.isFinite(v))).toBe(true);
    // Normal approximation at the mode: 1/sqrt(2πμ).
    expect(at(pmf, 10000) * Math.sqrt(2 * Math.PI * 1e4)).toBeCloseTo(1, 3);
    // The boundary atoms carry at most the cut mass.
    expect(pmf.probs[pmf.probs.length - 1]).toBeLessThan(2 * TAIL_CUT);
  });
});
