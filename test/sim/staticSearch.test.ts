import { describe, expect, it } from 'vitest';
import { searchStaticBatch } from '../../src/sim/staticSearch.js';

function argmin(m: Map<number, number>): number {
  let best = -1;
  let c = Infinity;
  for (const [b, v] of m) if (v < c) [best, c] = [b, v];
  return best;
}

describe('searchStaticBatch', () => {
  it('evaluates every size of a small range', () => {
    const m = searchStaticBatch(3, 40, (b) => (b - 17) ** 2);
    expect([...m.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 38 }, (_, i) => i + 3));
    expect(argmin(m)).toBe(17);
  });

  it('finds the minimum of unimodal costs on 1..1024 with few evaluations', () => {
    for (const target of [1, 2, 37, 377, 511, 1000, 1024]) {
      // Asymmetric, like a real cost: steep towards overload, gentle towards long waits.
      const f = (b: number): number => (b < target ? (target - b) ** 2 * 3 : (b - target) * 0.5) + 1;
      let calls = 0;
      const m = searchStaticBatch(1, 1024, (b) => (calls++, f(b)));
      expect(argmin(m), `target ${target}`).toBe(target);
      expect(calls).toBeLessThan(80);
    }
  });

  it('treats Infinity (an unstable size) as never best', () => {
    const m = searchStaticBatch(1, 500, (b) => (b < 120 ? Infinity : b));
    expect(argmin(m)).toBe(120);
  });
});
