import { describe, expect, it } from 'vitest';
import { erlangBoth, erlangFromExp } from '../../src/latency/poisson.js';

/**
 * The Erlang CDF the busy-batch integrals use (the Poisson recurrence from e^(−x)) against an
 * independent sum in log space over the smaller side of the Poisson law: Σ_{r≥n} past the mode,
 * else 1 − Σ_{r<n} (the side whose terms are small, so the reference keeps its absolute accuracy).
 */
function logPois(r: number, x: number): number {
  let lf = 0;
  for (let i = 2; i <= r; i++) lf += Math.log(i);
  return -x + r * Math.log(x) - lf;
}
function upperTail(n: number, x: number): number {
  let s = 0;
  if (n - 1 < x) {
    for (let r = 0; r < n; r++) s += Math.exp(logPois(r, x));
    return 1 - s;
  }
  for (let r = n; r < n + 2000; r++) s += Math.exp(logPois(r, x));
  return s;
}

describe('erlangFromExp', () => {
  it('matches the upper Poisson tail to a few n·ε absolute, and its density term matches erlangBoth', () => {
    const out = new Float64Array(2);
    const ref = new Float64Array(2);
    let worst = 0;
    for (const n of [1, 2, 3, 7, 20, 64]) {
      for (const x of [1e-3, 0.5, 3, 19.5, 64, 150, 400]) {
        erlangFromExp(n, x, Math.exp(-x), out);
        // a few n·ε absolute (the doc comment's claim), the reference's own rounding included
        worst = Math.max(worst, Math.abs(out[0] - upperTail(n, x)) / ((n + 2) * 2.2e-16));
        erlangBoth(n, 1, x, ref);
        expect(Math.abs(out[1] - ref[1])).toBeLessThanOrEqual(1e-13 * ref[1] + 1e-300);
      }
    }
    expect(worst).toBeLessThan(4);
  });
});
