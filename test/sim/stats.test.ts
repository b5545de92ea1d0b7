import { describe, expect, it } from 'vitest';
import { logGamma, meanHalfWidth, studentTCdf, studentTQuantile } from '../../src/sim/stats.js';

describe('batch-means statistics', () => {
  it('ln Γ at known points', () => {
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    expect(logGamma(10.5)).toBeCloseTo(13.940625219403763, 10);
  });

  it("Student's t quantiles match the printed tables", () => {
    // Values from standard t tables (two-sided 95 % and 99 %).
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062047, 5);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.3026527, 6);
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.2621572, 6);
    expect(studentTQuantile(0.975, 31)).toBeCloseTo(2.0395134, 6);
    expect(studentTQuantile(0.995, 10)).toBeCloseTo(3.1692727, 6);
    expect(studentTQuantile(0.975, 1e7)).toBeCloseTo(1.959964, 5);
  });

  it('the t CDF is symmetric and ν = 1 is Cauchy', () => {
    expect(studentTCdf(0, 5)).toBeCloseTo(0.5, 14);
    expect(studentTCdf(-1.3, 7) + studentTCdf(1.3, 7)).toBeCloseTo(1, 14);
    expect(studentTCdf(2, 1)).toBeCloseTo(0.5 + Math.atan(2) / Math.PI, 12);
  });

  it('half-width = t·s/√n, null below two values', () => {
    const v = [1, 2, 3, 4, 5];
    const s = Math.sqrt(2.5);
    expect(meanHalfWidth(v, 5, 0.95)).toBeCloseTo((2.7764451 * s) / Math.sqrt(5), 6);
    expect(meanHalfWidth(v, 1, 0.95)).toBeNull();
  });
});
