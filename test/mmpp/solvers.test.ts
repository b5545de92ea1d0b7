import { describe, expect, it } from 'vitest';
import { compileModel } from '../../src/model/compile.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { actionAt, type Policy } from '../../src/policy/policy.js';
import { policyIteration } from '../../src/solve/cpu/pi.js';
import { relativeValueIteration } from '../../src/solve/cpu/rvi.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { deterministicGf, invertGf, vanLoanIntegral, type Mmpp } from './reference.js';

/**
 * Three phases, one of them silent, the busiest above capacity for 10 ms at a time; B = 4,
 * l(b) = 0.5 ms·b + 1 ms (capacity 1,333 /s). Under the policies below the queue holds < 1e-15
 * above 160, so a dense chain on 160 levels is exact to rounding.
 */
const RATES = [0, 600, 1600];
const Q = [-40, 30, 10, 20, -25, 5, 30, 70, -100];
const SCENARIO: Scenario = {
  arrivalRate: 0,
  maxBatchSize: 4,
  serviceTime: { linear: { perItem: 0.0005, base: 0.001 }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 30, busyLinear: { perItem: 5, base: 60 } },
  objective: { latencyWeight: 1, powerWeight: 2e-4 },
  arrivalProcess: { mmpp: { rates: RATES, generator: Q } },
};

describe('MMPP solvers: policy iteration and RVI give the same certified optimum', () => {
  it('on a three-phase model at S = 90', async () => {
    const { params } = validateScenario(SCENARIO);
    const model = compileModel(params, 90);
    const opts = { tolerance: 1e-10, maxIterations: 0 };
    const pi = await policyIteration(model, opts);
    const rvi = await relativeValueIteration(model, opts);
    expect(pi.stopReason).toBe('converged');
    expect(rvi.stopReason).toBe('converged');
    expect(pi.iterations).toBeLessThan(20);
    // Both intervals contain g* of the truncated model, so they overlap.
    expect(pi.lower).toBeLessThanOrEqual(rvi.upper * (1 + 1e-12));
    expect(rvi.lower).toBeLessThanOrEqual(pi.upper * (1 + 1e-12));
    const B = params.maxBatchSize;
    const g = (actions: Int32Array): number => evaluatePolicy(params, { phases: 3, actions, tailBatch: B }).averageCost;
    expect(Math.abs(g(pi.policy) - g(rvi.policy)) / g(pi.policy)).toBeLessThan(1e-9);
  });
});

/**
 * An independent evaluator: counting matrices from the inverse DFT of exp(T(D0 + zD1)),
 * E[∫A] from the Van Loan block exponential, a dense embedded chain over levels 0..N−1 lumped
 * at the top, and its stationary distribution by Gaussian elimination. Shares no code with src/.
 */
function denseCost(policy: Policy, N: number): number {
  const M = 3;
  const p: Mmpp = { rates: RATES, Q };
  const l = (b: number): number => 0.0005 * b + 0.001;
  const n = N * M;
  const P: Float64Array[] = Array.from({ length: n }, () => new Float64Array(n));
  const c = new Float64Array(n);
  const y = new Float64Array(n);
  const counts = [null, 1, 2, 3, 4].map((b) => (b === null ? null : invertGf(deterministicGf(p, l(b)), M, 64)));
  const integral = [null, 1, 2, 3, 4].map((b) => (b === null ? null : vanLoanIntegral(p, l(b))));
  // π of Q: the jump chain's stationary vector weighted by the mean holding times.
  const jumps = stationary(Array.from({ length: M }, (_, i) => Float64Array.from({ length: M }, (_, j) => (i === j ? 0 : Q[i * M + j] / -Q[i * M + i]))));
  const held = jumps.map((v, i) => v / -Q[i * M + i]);
  const total = held.reduce((a, b) => a + b, 0);
  const lbar = held.reduce((a, v, i) => a + (v / total) * RATES[i], 0);
  for (let s = 0; s < N; s++) {
    for (let j = 0; j < M; j++) {
      const x = s * M + j;
      const a = actionAt(policy, s, j);
      if (a === 0) {
        const out = RATES[j] - Q[j * M + j];
        if (RATES[j] > 0) P[x][Math.min(s + 1, N - 1) * M + j] += RATES[j] / out;
        for (let k = 0; k < M; k++) if (k !== j) P[x][s * M + k] += Q[j * M + k] / out;
        y[x] = 1 / out;
        c[x] = (s / lbar + 2e-4 * 30) / out;
        continue;
      }
      const pk = counts[a]!;
      for (let k = 0; k < 64; k++) {
        for (let jj = 0; jj < M; jj++) P[x][Math.min(s - a + k, N - 1) * M + jj] += Math.max(0, pk[(k * M + j) * M + jj]);
      }
      y[x] = l(a);
      c[x] = (s * l(a) + integral[a]![j]) / lbar + 2e-4 * (60 + 5 * a) * l(a);
    }
  }
  const nu = stationary(P);
  let num = 0;
  let den = 0;
  for (let x = 0; x < n; x++) {
    num += nu[x] * c[x];
    den += nu[x] * y[x];
  }
  return num / den;
}

/** Stationary vector of a (row-stochastic up to rounding) matrix by Gaussian elimination with pivoting. */
function stationary(P: Float64Array[]): Float64Array {
  const n = P.length;
  // Solve x(P − I) = 0 with Σx = 1: transpose, replace the last equation by the normalisation.
  const A = Array.from({ length: n }, (_, i) => Float64Array.from({ length: n + 1 }, (_, j) => (j === n ? 0 : P[j][i] - (i === j ? 1 : 0))));
  A[n - 1].fill(1);
  for (let col = 0; col < n; col++) {
    let piv = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r][col]) > Math.abs(A[piv][col])) piv = r;
    [A[col], A[piv]] = [A[piv], A[col]];
    for (let r = 0; r < n; r++) {
      if (r === col || A[r][col] === 0) continue;
      const f = A[r][col] / A[col][col];
      for (let k = col; k <= n; k++) A[r][k] -= f * A[col][k];
    }
  }
  return Float64Array.from({ length: n }, (_, i) => A[i][n] / A[i][i]);
}

describe('exact MMPP evaluation against an independent dense evaluator', () => {
  it('the solved per-phase policy and a phase-blind control limit agree to 1e-9', async () => {
    const r = await solveScenario(SCENARIO);
    const M = 3;
    const phases = r.policy.phases!;
    const levels = phases[0].actions.length;
    const actions = new Int32Array(levels * M);
    for (let s = 0; s < levels; s++) for (let j = 0; j < M; j++) actions[s * M + j] = phases[j].actions[s];
    const solved: Policy = { phases: M, actions, tailBatch: 4 };
    expect(Math.abs(denseCost(solved, 160) - r.averageCost) / r.averageCost).toBeLessThan(1e-9);
    const blind: Policy = { phases: M, actions: new Int32Array(3 * M), tailBatch: 4 };
    const { params } = validateScenario(SCENARIO);
    const exact = evaluatePolicy(params, blind).averageCost;
    expect(Math.abs(denseCost(blind, 160) - exact) / exact).toBeLessThan(1e-9);
    // The per-phase optimum beats this phase-blind policy.
    expect(r.averageCost).toBeLessThan(exact);
  });
});
