import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/sim/rng.js';

function moments(n: number, draw: () => number): { mean: number; variance: number } {
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const x = draw();
    s += x;
    s2 += x * x;
  }
  const mean = s / n;
  return { mean, variance: s2 / n - mean * mean };
}

describe('Rng (xoshiro128**)', () => {
  it('matches the reference xoshiro128** output for a known state', () => {
    // Reference: the C code of Blackman & Vigna with s = {1, 2, 3, 4}; first outputs
    // computed by hand from its definition: rotl(s1·5, 7)·9.
    const r = new Rng(0);
    r.setState(1, 2, 3, 4);
    const out = [r.nextInt32() >>> 0, r.nextInt32() >>> 0, r.nextInt32() >>> 0];
    expect(out).toEqual([11520, 0, 5927040]);
  });

  it('is reproducible per (seed, stream) and differs across seeds and streams', () => {
    const a = new Rng(42, 0);
    const b = new Rng(42, 0);
    const c = new Rng(42, 1);
    const d = new Rng(43, 0);
    const xa = Array.from({ length: 8 }, () => a.nextInt32());
    expect(Array.from({ length: 8 }, () => b.nextInt32())).toEqual(xa);
    expect(Array.from({ length: 8 }, () => c.nextInt32())).not.toEqual(xa);
    expect(Array.from({ length: 8 }, () => d.nextInt32())).not.toEqual(xa);
    // Seeds beyond 2^32 are distinct too.
    expect(new Rng(2 ** 40).nextInt32()).not.toBe(new Rng(0).nextInt32());
  });

  it('rejects seeds that are not safe non-negative integers', () => {
    expect(() => new Rng(-1)).toThrow(/seed/);
    expect(() => new Rng(1.5)).toThrow(/seed/);
  });

  // Sample moments against the laws' own moments; the tolerances are 5 standard errors.
  const n = 400_000;
  it('uniform doubles on [0, 1): mean 1/2, variance 1/12', () => {
    const r = new Rng(7);
    const m = moments(n, () => r.nextDouble());
    expect(Math.abs(m.mean - 0.5)).toBeLessThan(5 * Math.sqrt(1 / 12 / n));
    expect(Math.abs(m.variance - 1 / 12)).toBeLessThan(5 * Math.sqrt(1 / 180 / n));
  });

  it('exponential: mean 1, variance 1', () => {
    const r = new Rng(8);
    const m = moments(n, () => r.nextExponential());
    expect(Math.abs(m.mean - 1)).toBeLessThan(5 / Math.sqrt(n));
    expect(Math.abs(m.variance - 1)).toBeLessThan(5 * Math.sqrt(8 / n));
  });

  it('normal: mean 0, variance 1', () => {
    const r = new Rng(9);
    const m = moments(n, () => r.nextNormal());
    expect(Math.abs(m.mean)).toBeLessThan(5 / Math.sqrt(n));
    expect(Math.abs(m.variance - 1)).toBeLessThan(5 * Math.sqrt(2 / n));
  });

  for (const shape of [0.25, 1, 2.0408, 9]) {
    it(`gamma(${shape}) (Marsaglia–Tsang): mean k, variance k`, () => {
      const r = new Rng(10);
      const m = moments(n, () => r.nextGamma(shape));
      const se = Math.sqrt(shape / n);
      expect(Math.abs(m.mean - shape)).toBeLessThan(5 * se);
      // Var of the sample variance of a gamma: (μ4 − σ⁴)/n with μ4 = 3k² + 6k.
      const seVar = Math.sqrt((3 * shape * shape + 6 * shape - shape * shape) / n);
      expect(Math.abs(m.variance - shape)).toBeLessThan(5 * seVar);
    });
  }
});
