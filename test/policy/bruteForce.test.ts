import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scenario.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { bruteForceOptimum } from '../helpers/bruteForce.js';
import { denseAverageCost, type TinyScenario } from '../helpers/denseEval.js';

/**
 * Brute force over every deterministic policy on states 0..S (S ≤ 6, B ≤ 3; beyond S:
 * serve min(s, B)), each evaluated by an independent dense solver. The solver's optimum
 * must match the best of them.
 */
interface Case {
  name: string;
  scenario: Scenario;
  tiny: TinyScenario;
  S: number;
}

function makeCase(name: string, lambda: number, B: number, perItem: number, base: number, law: TinyScenario['law'], wPow: number, S: number): Case {
  const distribution = law === 'det' ? 'DETERMINISTIC' : law === 'exp' ? 'EXPONENTIAL' : 'GAMMA';
  return {
    name,
    S,
    scenario: {
      arrivalRate: lambda,
      maxBatchSize: B,
      serviceTime: { linear: { perItem, base }, distribution, ...(typeof law === 'object' ? { cv: law.cv } : {}) },
      power: { idleWatts: 10, busyLinear: { perItem: 5, base: 30 } },
      objective: { latencyWeight: 1, powerWeight: wPow },
    },
    tiny: { lambda, B, l: (b) => perItem * b + base, law, P: (b) => 30 + 5 * b, P0: 10, wLat: 1, wPow },
  };
}

const CASES: Case[] = [
  makeCase('B=2 deterministic, latency only', 300, 2, 0.001, 0.003, 'det', 0, 6),
  makeCase('B=3 deterministic, power-heavy', 400, 3, 0.0008, 0.004, 'det', 2e-4, 5),
  makeCase('B=3 exponential', 250, 3, 0.001, 0.004, 'exp', 1e-4, 5),
  makeCase('B=3 gamma cv=0.5', 350, 3, 0.0006, 0.004, { cv: 0.5 }, 5e-4, 5),
  makeCase('B=1', 120, 1, 0.002, 0.003, 'det', 1e-3, 6),
];

describe('brute force over all deterministic policies of tiny scenarios', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const B = c.tiny.B;
      // Past S the policy serves min(s, B), which every case keeps stable.
      expect(c.tiny.lambda * c.tiny.l(B)).toBeLessThan(B);
      const { best, bestPolicy, count } = bruteForceOptimum(
        c.tiny,
        c.S,
        (s) => Array.from({ length: Math.min(s, B) + 1 }, (_, a) => a),
        (s) => Math.min(s, B),
      );
      expect(count).toBeGreaterThan(20);
      const r = await solveScenario(c.scenario);
      // The optimal policy serves min(s, B) beyond S here, so it lies in the enumerated class.
      for (let s = c.S + 1; s < r.policy.actions.length; s++) expect(r.policy.actions[s]).toBe(Math.min(s, c.tiny.B));
      expect(Math.abs(r.averageCost - best) / best).toBeLessThan(1e-9);
      expect(r.policy.actions.slice(0, c.S + 1)).toEqual(bestPolicy);
      // And the dense evaluator agrees with the exact banded evaluation of the returned policy.
      const dense = denseAverageCost(c.tiny, (s) => (s < r.policy.actions.length ? r.policy.actions[s] : Math.min(s, c.tiny.B)));
      expect(Math.abs(dense - r.averageCost) / r.averageCost).toBeLessThan(1e-9);
      expect(r.averageCostLower).toBeLessThanOrEqual(best * (1 + 1e-9));
      expect(r.averageCostUpper).toBeGreaterThanOrEqual(best * (1 - 1e-9));
    });
  }
});
