import { describe, expect, it } from 'vitest';
import { LogHistogram } from '../../src/sim/histogram.js';
import { Rng } from '../../src/sim/rng.js';

/** The value of rank ⌈p·n⌉ of the sorted sample: the definition the histogram approximates. */
function exactQuantile(sorted: Float64Array, p: number): number {
  return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1];
}

describe('LogHistogram', () => {
  it('reports quantiles within 2^-11 relative of the exact order statistics', () => {
    const r = new Rng(3);
    const h = new LogHistogram();
    const n = 100_000;
    const xs = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      // Spread over six decades: 10^U seconds with U uniform on [-6, 0].
      xs[i] = Math.pow(10, -6 + 6 * r.nextDouble());
      h.record(xs[i]);
    }
    xs.sort();
    for (const p of [0.001, 0.5, 0.9, 0.95, 0.99, 0.999, 1]) {
      const exact = exactQuantile(xs, p);
      expect(Math.abs(h.quantile(p) - exact) / exact).toBeLessThanOrEqual(2 ** -11 + 1e-12);
    }
    expect(h.min).toBe(xs[0]);
    expect(h.max).toBe(xs[n - 1]);
    expect(h.count).toBe(n);
  });

  it('is exact for a single repeated value and clamps to the extremes', () => {
    const h = new LogHistogram();
    for (let i = 0; i < 10; i++) h.record(0.0123);
    expect(h.quantile(0.5)).toBe(0.0123);
    expect(h.quantile(0.999)).toBe(0.0123);
  });

  it('counts zero and out-of-range values in the end buckets', () => {
    const h = new LogHistogram();
    h.record(0);
    h.record(1e-20);
    h.record(1e20);
    expect(h.count).toBe(3);
    // Everything below 2^-40 s (about 1 ps) shares the first bucket.
    expect(h.quantile(0.1)).toBeLessThan(2 ** -40 * (1 + 2 ** -10));
    expect(h.quantile(1)).toBe(1e20);
  });

  it('answers NaN when empty', () => {
    expect(new LogHistogram().quantile(0.5)).toBeNaN();
  });
});
