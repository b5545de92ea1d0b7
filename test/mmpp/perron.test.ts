import { describe, expect, it } from 'vitest';
import { tiltedPerronRoot } from '../../src/model/mmpp/perron.js';
import { tailDecay } from '../../src/model/queueEstimate.js';
import { validateScenario } from '../../src/model/validate.js';
import type { Scenario } from '../../src/model/scenario.js';
import { deterministicGf, erlangGf, invertGf, type CMat, type Mmpp } from './reference.js';

/**
 * The MMPP queue's tail decay (model/mmpp/perron.ts, model/queueEstimate.ts tailDecay) against
 * references that share no code with src/: closed-form eigenvalues, power iteration on the
 * tilted batch matrix E[exp((D0 + z·D1)·T)] of test/mmpp/reference.ts, and the stationary law of
 * the (level, phase) chain built from that file's counting matrices and solved here by GTH.
 */

/** Largest eigenvalue of a positive matrix by power iteration (row-major, real part of a CMat). */
function powerRoot(a: Float64Array, n: number): number {
  let v = new Float64Array(n).fill(1);
  let root = 0;
  for (let it = 0; it < 5000; it++) {
    const w = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) w[i] += a[i * n + j] * v[j];
    const next = Math.max(...w);
    v = w.map((x) => x / next);
    if (Math.abs(next - root) <= 1e-15 * next) return next;
    root = next;
  }
  return root;
}

const realPart = (m: CMat): Float64Array => m.re;

function mmppScenario(p: Mmpp, B: number, serviceTime: Scenario['serviceTime']): Scenario {
  return {
    arrivalRate: 0,
    maxBatchSize: B,
    serviceTime,
    arrivalProcess: { mmpp: { rates: p.rates, generator: p.Q } },
    power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
    objective: { latencyWeight: 1, powerWeight: 0 },
  };
}

describe('the tilted generator’s Perron root', () => {
  it('one phase: λ·(e^θ − 1) exactly', () => {
    for (const theta of [0, 1e-6, 0.3, 2]) expect(tiltedPerronRoot([0], [7.5], theta)).toBe(7.5 * Math.expm1(theta));
  });

  it('two phases: the closed-form largest eigenvalue of a 2×2 matrix', () => {
    const rates = [300, 2500];
    const Q = [-3, 3, 7, -7];
    for (const theta of [1e-4, 0.01, 0.5]) {
      const t = Math.expm1(theta);
      const a = Q[0] + rates[0] * t;
      const d = Q[3] + rates[1] * t;
      const exact = (a + d) / 2 + Math.sqrt(((a - d) / 2) ** 2 + Q[1] * Q[2]);
      expect(Math.abs(tiltedPerronRoot(Q, rates, theta) - exact)).toBeLessThan(1e-13 * Math.abs(exact));
    }
  });

  it('four phases: power iteration on the shifted matrix agrees', () => {
    const rates = [1500, 2500, 4000, 7000];
    const Q = [-4, 4, 0, 0, 6, -9, 3, 0, 0, 8, -10, 2, 0, 0, 20, -20];
    for (const theta of [1e-3, 0.05]) {
      const t = Math.expm1(theta);
      const shift = 100;
      const a = new Float64Array(16);
      for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) a[i * 4 + j] = Q[i * 4 + j] + (i === j ? rates[i] * t + shift : 0);
      const exact = powerRoot(a, 4) - shift;
      expect(Math.abs(tiltedPerronRoot(Q, rates, theta) - exact)).toBeLessThan(1e-12 * Math.abs(exact) + 1e-12);
    }
  });
});

describe('the MMPP tail decay θ: ρ(E[exp((D0 + z·D1)·T_B)]) = z^B at z = e^θ', () => {
  const p: Mmpp = { rates: [400, 3000], Q: [-2, 2, 5, -5] };
  const B = 8;
  // l(b) = 0.001 + 0.0003·b: l(8) = 3.4 ms; mean rate 1,143 /s, 3.9 arrivals a batch of 8.
  const linear = { perItem: 0.0003, base: 0.001 };
  const l = linear.base + linear.perItem * B;
  it('deterministic service', () => {
    const theta = tailDecay(validateScenario(mmppScenario(p, B, { linear, distribution: 'DETERMINISTIC' })).params);
    expect(theta).toBeGreaterThan(0);
    const z = Math.exp(theta);
    const root = powerRoot(realPart(deterministicGf(p, l)(z, 0)), 2);
    expect(Math.abs(Math.log(root) - theta * B) / (theta * B)).toBeLessThan(1e-9);
    // A little inside the root the batch still drains the tilted walk.
    expect(Math.log(powerRoot(realPart(deterministicGf(p, l)(Math.exp(0.99 * theta), 0)), 2))).toBeLessThan(0.99 * theta * B);
  });

  it('gamma service of shape 2 (cv 1/√2) and exponential service', () => {
    for (const [distribution, cv, shape] of [
      ['GAMMA', Math.SQRT1_2, 2],
      ['EXPONENTIAL', 1, 1],
    ] as const) {
      const theta = tailDecay(validateScenario(mmppScenario(p, B, { linear, distribution, ...(distribution === 'GAMMA' ? { cv } : {}) })).params);
      const root = powerRoot(realPart(erlangGf(p, l, shape)(Math.exp(theta), 0)), 2);
      expect(Math.abs(Math.log(root) - theta * B) / (theta * B)).toBeLessThan(1e-9);
    }
  });
});

/**
 * Stationary law of a finite chain by GTH (no subtraction, so the tail keeps its relative
 * precision however small): P row-major n×n, returned normalised.
 */
function gth(P: Float64Array, n: number): Float64Array {
  const a = P.slice();
  for (let k = n - 1; k > 0; k--) {
    let s = 0;
    for (let j = 0; j < k; j++) s += a[k * n + j];
    for (let i = 0; i < k; i++) {
      const f = a[i * n + k] / s;
      if (f === 0) continue;
      for (let j = 0; j < k; j++) a[i * n + j] += f * a[k * n + j];
    }
  }
  const x = new Float64Array(n);
  x[0] = 1;
  for (let k = 1; k < n; k++) {
    let s = 0;
    for (let j = 0; j < k; j++) s += a[k * n + j];
    let v = 0;
    for (let i = 0; i < k; i++) v += x[i] * a[i * n + k];
    x[k] = v / s;
  }
  const total = x.reduce((u, v) => u + v, 0);
  return x.map((v) => v / total);
}

describe('the MMPP tail decay against the stationary law of the queue', () => {
  it('level masses of the (level, phase) chain that serves up to B at each epoch fall by e^(−θ) a level, deep in the tail', () => {
    const p: Mmpp = { rates: [1, 5], Q: [-0.5, 0.5, 0.5, -0.5] };
    const B = 4;
    const T = 1;
    const M = 2;
    const K = 48;
    // P_k[j][j'] for k < K (the mass past K is below 1e-20: at most 5 arrivals a unit time, on average).
    const Pk = invertGf(deterministicGf(p, T), M, K);
    const levels = 420;
    const n = levels * M;
    const P = new Float64Array(n * n);
    for (let s = 0; s < levels; s++) {
      const base = Math.max(0, s - B);
      for (let k = 0; k < K; k++) {
        const to = Math.min(levels - 1, base + k);
        for (let j = 0; j < M; j++) for (let jj = 0; jj < M; jj++) P[(s * M + j) * n + to * M + jj] += Math.max(0, Pk[(k * M + j) * M + jj]);
      }
    }
    const nu = gth(P, n);
    const level = (s: number) => nu[s * M] + nu[s * M + 1];
    // linear 0.25/item with no base: l(4) = 1 = T, so the scenario's θ is this chain's.
    const theta = tailDecay(validateScenario(mmppScenario(p, B, { linear: { perItem: 0.25, base: 0 }, distribution: 'DETERMINISTIC' })).params);
    expect(theta).toBeGreaterThan(0.05);
    for (const s of [150, 200, 250]) {
      expect(level(s)).toBeGreaterThan(1e-200);
      expect(Math.abs(Math.log(level(s + 10) / level(s)) / 10 + theta) / theta).toBeLessThan(1e-6);
    }
  });
});
