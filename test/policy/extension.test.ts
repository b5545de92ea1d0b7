import { describe, expect, it } from 'vitest';
import { buildArrivalTable } from '../../src/model/arrivalTable.js';
import { validateScenario } from '../../src/model/validate.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { homogeneousFrom } from '../../src/policy/extension.js';
import { greedyPolicy } from '../../src/policy/policy.js';

describe('the extension past the table', () => {
  it('homogeneousFrom is the first level of the last run serving the tail batch, in every phase', () => {
    expect(homogeneousFrom({ actions: Int32Array.of(0, 0, 4, 3, 4, 4, 4), tailBatch: 4 })).toBe(4);
    expect(homogeneousFrom({ actions: Int32Array.of(0, 0, 4, 3, 4, 4, 3), tailBatch: 4 })).toBe(7);
    expect(homogeneousFrom(greedyPolicy(8))).toBe(1);
    // Two phases, s-major: level 3 serves 4 in phase 0 only.
    expect(homogeneousFrom({ phases: 2, actions: Int32Array.of(0, 0, 0, 0, 0, 0, 4, 0, 4, 4, 4, 4), tailBatch: 4 })).toBe(4);
  });

  it('M/G/1 with gamma service (cv 1.5, ρ = 0.97) over a long serving table matches Pollaczek–Khinchine, the extension grown by the decay read inside the table', () => {
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
    const S = 1200;
    const actions = new Int32Array(S + 1).fill(1);
    actions[0] = 0;
    const ev = evaluatePolicy(params, { actions, tailBatch: 1 }, { minLevels: S + 1 });
    const rho = lambda * l;
    const pk = l + (lambda * l * l * (1 + cv * cv)) / (2 * (1 - rho));
    expect(Math.abs(ev.meanResponseTime - pk) / pk).toBeLessThan(1e-11);
    // The first extension (the table and two reaches, reach = 1 + the longest jump up) held too much
    // at its top; the windows below it, inside the table, read the decay, and the next size came from
    // it, short of the doubling a decay read past the table alone would have asked for.
    const table = buildArrivalTable(params);
    const reach = 1 + table.offset[1] + table.length[1] - 1 - 1;
    const first = S + 1 + 2 * reach;
    expect(ev.levels).toBeGreaterThan(first);
    expect(ev.levels).toBeLessThan(2 * first);
  });
});
