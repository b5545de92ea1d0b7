import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scenario.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { bruteForceOptimum } from '../helpers/bruteForce.js';
import { denseAverageCost, type TinyScenario } from '../helpers/denseEval.js';

/**
 * Restricted solves (docs/model.md §11.1) against brute force: every deterministic policy on
 * states 0..S that the restriction permits (beyond S: serve min(s, B)), each evaluated by the
 * independent dense evaluator of test/helpers/denseEval.ts, with the restriction's charging
 * written out here from its definition (padding: a batch of b costs the service time, power
 * and arrivals of the smallest allowed size ≥ b). The solver's optimum must be the best one.
 */
type Rule = 'PAD_TO_ALLOWED' | 'ONLY_ALLOWED';

interface Case {
  name: string;
  scenario: Scenario;
  /** The dense evaluator's scenario, charged as the restriction says. */
  tiny: TinyScenario;
  /** The batches a policy may serve at level s. */
  serves: (s: number) => number[];
  /** The largest batch (the policy past S serves min(s, top)). */
  top: number;
  S: number;
}

/** Smallest allowed size ≥ b, from the definition. */
function pad(allowed: number[], b: number): number {
  let best = Infinity;
  for (const a of allowed) if (a >= b && a < best) best = a;
  return best;
}

function makeCase(
  name: string,
  o: { lambda: number; B: number; perItem: number; base: number; law: TinyScenario['law']; wPow: number; S: number; allowed?: number[]; rule?: Rule; cap?: number },
): Case {
  const { lambda, B, perItem, base, law, wPow, S } = o;
  const distribution = law === 'det' ? 'DETERMINISTIC' : law === 'exp' ? 'EXPONENTIAL' : 'GAMMA';
  const allowed = o.allowed ?? [];
  const rule = o.rule ?? 'PAD_TO_ALLOWED';
  const top = Math.min(B, o.cap ?? B);
  const charged = (b: number): number => (allowed.length > 0 && rule === 'PAD_TO_ALLOWED' ? pad(allowed, b) : b);
  const l = (b: number): number => perItem * charged(b) + base;
  const P = (b: number): number => 30 + 5 * charged(b);
  const serves = (s: number): number[] => {
    const out: number[] = [];
    for (let b = 1; b <= Math.min(s, top); b++) if (rule === 'PAD_TO_ALLOWED' || allowed.includes(b)) out.push(b);
    return out;
  };
  return {
    name,
    S,
    top,
    serves,
    scenario: {
      arrivalRate: lambda,
      maxBatchSize: B,
      serviceTime: { linear: { perItem, base }, distribution, ...(typeof law === 'object' ? { cv: law.cv } : {}) },
      power: { idleWatts: 10, busyLinear: { perItem: 5, base: 30 } },
      objective: { latencyWeight: 1, powerWeight: wPow },
      restrictions: {
        ...(o.allowed ? { allowedBatchSizes: o.allowed, batchSizeRule: rule } : {}),
        ...(o.cap !== undefined ? { maxOngoingRequests: o.cap } : {}),
      },
    },
    tiny: { lambda, B: top, l, law, P, P0: 10, wLat: 1, wPow },
  };
}

const CASES: Case[] = [
  // The {1, 2, 4, …} pattern at B = 4: a batch of 3 is padded to 4.
  makeCase('padded to {1, 2, 4}, deterministic', { lambda: 450, B: 4, perItem: 0.0012, base: 0.003, law: 'det', wPow: 2e-4, S: 5, allowed: [1, 2, 4] }),
  makeCase('padded to {2, 4}, exponential', { lambda: 300, B: 4, perItem: 0.001, base: 0.004, law: 'exp', wPow: 1e-4, S: 5, allowed: [4, 2] }),
  makeCase('padded to {1, 3}, gamma cv = 0.5', { lambda: 330, B: 3, perItem: 0.0006, base: 0.004, law: { cv: 0.5 }, wPow: 5e-4, S: 5, allowed: [1, 3] }),
  makeCase('only {1, 2, 4}, deterministic', { lambda: 450, B: 4, perItem: 0.0012, base: 0.003, law: 'det', wPow: 2e-4, S: 5, allowed: [1, 2, 4], rule: 'ONLY_ALLOWED' }),
  makeCase('only {2, 4}, latency only', { lambda: 300, B: 4, perItem: 0.001, base: 0.004, law: 'det', wPow: 0, S: 6, allowed: [2, 4], rule: 'ONLY_ALLOWED' }),
  makeCase('at most 3 held, B = 5', { lambda: 400, B: 5, perItem: 0.0008, base: 0.004, law: 'det', wPow: 2e-4, S: 6, cap: 3 }),
];

describe('restricted solves against brute force over the policies the restriction permits', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const past = (s: number): number => Math.min(s, c.top);
      expect(c.tiny.lambda * c.tiny.l(c.top)).toBeLessThan(c.top);
      const { best, bestPolicy, count } = bruteForceOptimum(c.tiny, c.S, (s) => [0, ...c.serves(s)], past);
      expect(count).toBeGreaterThan(20);
      const r = await solveScenario(c.scenario);
      const actions = Array.from(r.policy.actions);
      // Every action is one the restriction permits, and past S the policy is in the enumerated class.
      actions.forEach((a, s) => expect([0, ...c.serves(s)]).toContain(a));
      for (let s = c.S + 1; s < actions.length; s++) expect(actions[s]).toBe(past(s));
      expect(Math.abs(r.averageCost - best) / best).toBeLessThan(1e-9);
      expect(actions.slice(0, c.S + 1)).toEqual(bestPolicy);
      // The exact evaluation charges the batches as the dense reference does.
      const dense = denseAverageCost(c.tiny, (s) => (s < actions.length ? actions[s] : past(s)));
      expect(Math.abs(dense - r.averageCost) / r.averageCost).toBeLessThan(1e-9);
      expect(r.averageCostLower).toBeLessThanOrEqual(best * (1 + 1e-9));
      expect(r.averageCostUpper).toBeGreaterThanOrEqual(best * (1 - 1e-9));
      // Each case is one where the restriction binds: the unrestricted optimum is strictly cheaper.
      const { restrictions: _dropped, ...unrestricted } = c.scenario;
      const u = await solveScenario(unrestricted);
      expect(u.averageCost).toBeLessThan(r.averageCost * (1 - 1e-6));
    });
  }
});
