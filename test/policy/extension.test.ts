import { describe, expect, it } from 'vitest';
import { arrivalsOf, buildArrivalTable } from '../../src/model/arrivalTable.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy, tailQuantile } from '../../src/policy/evaluate.js';
import { EXTENSION_TOP_MASS, extendedSolutions, homogeneousFrom, type ExtendedSolution } from '../../src/policy/extension.js';
import { greedyPolicy } from '../../src/policy/policy.js';

describe('the extension past the table', () => {
  it('homogeneousFrom is the first level of the last run serving the tail batch, in every phase', () => {
    expect(homogeneousFrom({ actions: Int32Array.of(0, 0, 4, 3, 4, 4, 4), tailBatch: 4 })).toBe(4);
    expect(homogeneousFrom({ actions: Int32Array.of(0, 0, 4, 3, 4, 4, 3), tailBatch: 4 })).toBe(7);
    expect(homogeneousFrom(greedyPolicy(8))).toBe(1);
    // Two phases, s-major: level 3 serves 4 in phase 0 only.
    expect(homogeneousFrom({ phases: 2, actions: Int32Array.of(0, 0, 0, 0, 0, 0, 4, 0, 4, 4, 4, 4), tailBatch: 4 })).toBe(4);
  });

  // M/G/1 with gamma service (cv 1.5, ρ = 0.97): the tail decays slowly past any table (e^(−θ) ≈ 0.98 a level).
  const lambda = 485;
  const l = 0.002;
  const cv = 1.5;
  const { params } = validateScenario({
    arrivalRate: lambda,
    maxBatchSize: 1,
    serviceTime: { linear: { perItem: 0, base: l }, distribution: 'GAMMA', cv },
    power: { idleWatts: 10, busyLinear: { perItem: 0, base: 50 } },
    objective: { latencyWeight: 1 },
  });
  const rho = lambda * l;
  const pk = l + (lambda * l * l * (1 + cv * cv)) / (2 * (1 - rho));
  const table = buildArrivalTable(params);
  const reach = 1 + table.offset[1] + table.length[1] - 1 - 1;
  const serveAlways = (S: number): Int32Array => {
    const actions = new Int32Array(S + 1).fill(1);
    actions[0] = 0;
    return actions;
  };
  /** Every extension the evaluation solves, up to the first whose top is under the target. */
  const extensions = (S: number): ExtendedSolution[] => {
    const out: ExtendedSolution[] = [];
    for (const sol of extendedSolutions(params, arrivalsOf(params), { actions: serveAlways(S), tailBatch: 1 }, table, { minLevels: S + 1 })) {
      out.push(sol);
      if (sol.top < EXTENSION_TOP_MASS) return out;
    }
    return out;
  };
  /** The evaluation over a table of S + 1 levels, its mean checked against Pollaczek–Khinchine. */
  const evaluated = (S: number) => {
    const ev = evaluatePolicy(params, { actions: serveAlways(S), tailBatch: 1 }, { minLevels: S + 1 });
    expect(Math.abs(ev.meanResponseTime - pk) / pk).toBeLessThan(1e-11);
    return ev;
  };

  it('over a long serving table (tail past it < 1e-9): matches Pollaczek–Khinchine from one extension, sized by the exact decay where two reaches past the table would hold too much', () => {
    const S = 1200;
    const ev = evaluated(S);
    const solved = extensions(S);
    expect(solved).toHaveLength(1);
    expect(solved[0].levels).toBe(ev.levels);
    // The table and two reaches (the size without the decay): its top window, [S + 1 + reach, S + 1 + 2·reach),
    // holds more than the target, so that size would have been solved in vain.
    let window = 0;
    for (let s = S + 1 + reach; s < S + 1 + 2 * reach; s++) window += ev.stationary[s];
    expect(window).toBeGreaterThan(EXTENSION_TOP_MASS);
    expect(ev.levels).toBeGreaterThan(S + 1 + 2 * reach);
  });

  it('over a short table (tail past it ≫ 1e-9): matches Pollaczek–Khinchine, the extension grown by the decay its windows read', () => {
    const S = 300;
    evaluated(S);
    const solved = extensions(S);
    expect(solved).toHaveLength(2);
    // The first one's windows read a clean decay, which put the second size short of a doubling.
    expect(solved[0].decay).toBeDefined();
    expect(solved[0].top).toBeGreaterThan(EXTENSION_TOP_MASS);
    expect(solved[1].levels).toBeLessThan(2 * solved[0].levels);
  });

  it('a sizing (tailQuantile) reads its quantile off the first extension when the decay says two reaches would not show one', () => {
    const sizing = 1e-10;
    const [first] = extendedSolutions(params, arrivalsOf(params), greedyPolicy(1), table, { sizing });
    // Two reaches past a one-level table leave e^(−θ·reach) ≈ 0.2 of the mass at the top: neither under
    // the quantile's mass nor windows enough for a decay. This first solve already reads one.
    expect(first.levels).toBeGreaterThan(1 + 2 * reach);
    expect(first.decay).toBeDefined();
    const q = tailQuantile(params, greedyPolicy(1), sizing, { table });
    // P(Q > q) for the M/G/1 queue at ρ = 0.97 falls by e^(−θ) a level: q lies where the geometric tail crosses 1e-10.
    expect(q).toBeGreaterThan(first.levels);
  });
});
