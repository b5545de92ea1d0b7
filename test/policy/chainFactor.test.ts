import { describe, expect, it } from 'vitest';
import { BandChain, solveChain } from '../../src/policy/chain.js';
import { gaussSolve } from '../helpers/denseEval.js';

/**
 * The reduction's shortcuts (pivots copied along level-homogeneous stretches, pivots taken over
 * from the factor of a chain that shares rows) against an independent dense f64 solve of the
 * same chain, and against the plain reduction.
 */

const B = 4; // largest drop in levels
const K = 12; // largest arrival count in one service
const BURSTY = [1, 5]; // arrivals per service in each of the two phases (mean 3 < B)

function poissonPmf(mu: number): number[] {
  const p: number[] = [];
  let term = Math.exp(-mu);
  for (let k = 0; k <= K; k++) {
    p.push(term);
    term *= mu / (k + 1);
  }
  const total = p.reduce((x, y) => x + y, 0);
  return p.map((x) => x / total);
}

/**
 * A bursty queue over `levels` levels × 2 phases: serve min(s, B) (or `serve(s, j)`), then k
 * arrivals of the phase's law, the phase kept with probability 0.9; at s = 0 wait for one
 * arrival or a phase change. What passes the top level stays there.
 */
function queueChain(levels: number, serve: (s: number) => number = (s) => Math.min(s, B), rates = BURSTY): BandChain {
  const M = 2;
  const ch = new BandChain(levels * M, (B + 1) * M - 1, (K - 1 + 1) * M - 1, M);
  const pmfs = rates.map(poissonPmf);
  for (let s = 0; s < levels; s++) {
    for (let j = 0; j < M; j++) {
      const x = s * M + j;
      const b = s === 0 ? 0 : serve(s);
      if (b === 0) {
        ch.add(x, Math.min(s + 1, levels - 1) * M + j, 0.7);
        ch.add(x, s * M + (1 - j), 0.3);
      } else {
        for (let k = 0; k <= K; k++) {
          const to = Math.min(s - b + k, levels - 1) * M;
          ch.add(x, to + j, 0.9 * pmfs[j][k]);
          ch.add(x, to + 1 - j, 0.1 * pmfs[j][k]);
        }
      }
      ch.reward[x] = 1e-2 * s * s + j + 1;
      ch.time[x] = 1 + 0.1 * b;
    }
  }
  return ch;
}

/** Dense transition matrix of a band chain. */
function dense(ch: BandChain): number[][] {
  const P = Array.from({ length: ch.n }, () => new Array<number>(ch.n).fill(0));
  for (let i = 0; i < ch.n; i++) {
    for (let j = Math.max(0, i - ch.lo); j <= Math.min(ch.n - 1, i + ch.hi); j++) P[i][j] = ch.a[ch.index(i, j)];
  }
  return P;
}

/**
 * ν by dense state reduction from the top (subtraction-free, so every entry, however small,
 * comes out to a relative ε·n): P_ij += P_ik·P_kj / Σ_{j<k} P_kj, then ν_k = Σ_{i<k} ν_i·P_ik / Σ_{j<k} P_kj.
 */
function denseStationary(ch: BandChain): number[] {
  const P = dense(ch);
  const n = ch.n;
  const out = new Array<number>(n).fill(0);
  for (let k = n - 1; k > 0; k--) {
    let s = 0;
    for (let j = 0; j < k; j++) s += P[k][j];
    out[k] = s;
    for (let i = 0; i < k; i++) {
      const m = P[i][k] / s;
      if (m === 0) continue;
      for (let j = 0; j < k; j++) P[i][j] += m * P[k][j];
    }
  }
  const nu = new Array<number>(n).fill(0);
  nu[0] = 1;
  for (let k = 1; k < n; k++) {
    let acc = 0;
    for (let i = 0; i < k; i++) acc += nu[i] * P[i][k];
    nu[k] = acc / out[k];
  }
  const total = nu.reduce((x, y) => x + y, 0);
  return nu.map((x) => x / total);
}

/** (g, h) from h(s) = c(s) − g·y(s) + Σ p(s,j)·h(j), h(ref) = 0: unknown g in the place of h(ref). */
function denseValues(ch: BandChain, ref: number): { g: number; h: number[] } {
  const P = dense(ch);
  const n = ch.n;
  const A = Array.from({ length: n }, (_, r) => Float64Array.from({ length: n }, (_, c) => (c === ref ? ch.time[r] : (r === c ? 1 : 0) - P[r][c])));
  const x = gaussSolve(A, Array.from(ch.reward));
  const g = x[ref];
  x[ref] = 0;
  return { g, h: x };
}

/** The row of two chains of one length from which they agree to the top. */
function sharedTop(x: BandChain, y: BandChain): number {
  const W = x.width;
  const same = (i: number): boolean => x.a.subarray(i * W, (i + 1) * W).every((v, e) => v === y.a[i * W + e]);
  let top = x.n;
  while (top > 0 && same(top - 1)) top--;
  return top;
}

function maxAbsDiff(x: ArrayLike<number>, y: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < x.length; i++) d = Math.max(d, Math.abs(x[i] - y[i]));
  return d;
}

describe('chain reduction along level-homogeneous stretches', () => {
  const ch = queueChain(300);
  const nu = denseStationary(ch);

  it('copies pivots from the level before and still solves the chain (top-down, likely reference)', () => {
    const sol = solveChain(ch, { ref: 6, refine: 1 });
    expect(sol.factor.copied).toBeGreaterThan(200);
    expect(maxAbsDiff(sol.stationary, nu)).toBeLessThan(1e-14);
    const ref = denseValues(ch, 6);
    expect(Math.abs(sol.gain - ref.g) / ref.g).toBeLessThan(1e-12);
    const scale = Math.max(...ref.h.map(Math.abs));
    expect(maxAbsDiff(sol.values, ref.h) / scale).toBeLessThan(1e-11);
  });

  it('copies pivots bottom-up too, with the reference at the rarest end', () => {
    const sol = solveChain(ch, { ref: ch.n - 1, stationaryOnly: true });
    expect(sol.factor.copied).toBeGreaterThan(200);
    expect(maxAbsDiff(sol.stationary, nu)).toBeLessThan(1e-14);
    // Far out the mass is tiny; it is still right relative to itself.
    for (const x of [400, 500, 598]) expect(Math.abs(sol.stationary[x] / nu[x] - 1)).toBeLessThan(1e-12);
  });

  it('takes over the upper pivots of a chain that differs only at short queues, to the last bit', () => {
    const other = queueChain(300, (s) => (s < 3 ? 1 : Math.min(s, B)));
    const first = solveChain(other, { ref: 6, refine: 1 });
    const top = sharedTop(other, ch);
    expect(top).toBeLessThan(20);
    const reused = solveChain(ch, { ref: 6, refine: 1, reuse: { from: first.factor, top } });
    expect(first.factor.consumed).toBe(true);
    const plain = solveChain(ch, { ref: 6, refine: 1 });
    expect(reused.values).toEqual(plain.values);
    expect(reused.stationary).toEqual(plain.stationary);
    expect(reused.gain).toBe(plain.gain);
    // And a second solve of the same chain from another reference, as evaluateOnModel does.
    const again = solveChain(ch, { ref: 30, refine: 1, reuse: { from: plain.factor, top: 0 } });
    expect(again.values).toEqual(solveChain(ch, { ref: 30, refine: 1 }).values);
  });

  it('keeps ν finite when the reference is the top of a steep tail', () => {
    const light = [0.05, 0.3];
    const steep = queueChain(900, undefined, light);
    const sol = solveChain(steep, { ref: steep.n - 1, stationaryOnly: true });
    let total = 0;
    for (const v of sol.stationary) {
      expect(Number.isFinite(v)).toBe(true);
      total += v;
    }
    expect(total).toBeCloseTo(1, 12);
    expect(sol.stationary[steep.n - 1]).toBe(0); // below the smallest double
    const nuLight = denseStationary(queueChain(100, undefined, light));
    for (let x = 0; x < 20; x++) expect(Math.abs(sol.stationary[x] / nuLight[x] - 1)).toBeLessThan(1e-12);
  });
});
