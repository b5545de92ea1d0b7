import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scenario.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { SPEC_FIT, specScenario } from '../helpers/scenarios.js';

/**
 * Restricted optima (docs/model.md §11.1) against the unrestricted one on the docs/model.md §6
 * system (B = 32): restricting can only cost (never lower), ONLY_ALLOWED costs at least what
 * padding does (its actions are a subset, at the same charges), and a restriction that allows
 * everything changes nothing.
 */
const POWERS_OF_TWO = [1, 2, 4, 8, 16, 32];
const ALL = Array.from({ length: 32 }, (_, i) => i + 1);

const SCENARIOS: Array<[string, Scenario]> = [
  ['λ = 4000, w_pow = 1e-3', specScenario(4000, 1e-3)],
  ['λ = 4000, w_pow = 1e-4', specScenario(4000, 1e-4)],
  ['λ = 1500, w_pow = 1e-4', specScenario(1500, 1e-4)],
  ['λ = 2000, exponential', specScenario(2000, 1e-4, { serviceTime: { linear: { ...SPEC_FIT }, distribution: 'EXPONENTIAL' } })],
];

const restricted = (s: Scenario, restrictions: Scenario['restrictions']): Scenario => ({ ...s, restrictions });
const smallest = (b: number): number => POWERS_OF_TWO.find((a) => a >= b)!;

describe('restricted optimum against the unrestricted one', () => {
  for (const [name, scenario] of SCENARIOS) {
    it(`${name}: allowed {1, 2, 4, 8, 16, 32} costs no less, only-allowed no less than padded`, async () => {
      const u = await solveScenario(scenario);
      const pad = await solveScenario(restricted(scenario, { allowedBatchSizes: POWERS_OF_TWO }));
      const only = await solveScenario(restricted(scenario, { allowedBatchSizes: POWERS_OF_TWO, batchSizeRule: 'ONLY_ALLOWED' }));
      // Never lower, beyond the certified intervals' width.
      expect(pad.averageCostUpper).toBeGreaterThanOrEqual(u.averageCostLower);
      expect(pad.averageCost).toBeGreaterThanOrEqual(u.averageCost * (1 - 1e-9));
      expect(only.averageCost).toBeGreaterThanOrEqual(pad.averageCost * (1 - 1e-9));
      for (const a of only.policy.actions) expect([0, ...POWERS_OF_TWO]).toContain(a);
      // The unrestricted optimum serves sizes the restriction pads or forbids, so here it binds.
      expect(u.policy.actions.some((a) => a > 0 && !POWERS_OF_TWO.includes(a))).toBe(true);
      expect(only.averageCost).toBeGreaterThan(u.averageCost * (1 + 1e-6));
    });
  }

  it('padding is the scenario with the padded sizes’ service times and power, written as tables', async () => {
    const [, scenario] = SCENARIOS[0];
    const pad = await solveScenario(restricted(scenario, { allowedBatchSizes: POWERS_OF_TWO }));
    const tables = await solveScenario({
      ...scenario,
      serviceTime: { table: { values: ALL.map((b) => SPEC_FIT.perItem * smallest(b) + SPEC_FIT.base) }, distribution: 'DETERMINISTIC' },
      power: { idleWatts: 40, busyTable: { values: ALL.map((b) => 80 + 3 * smallest(b)) } },
    });
    expect(Math.abs(pad.averageCost - tables.averageCost) / tables.averageCost).toBeLessThan(1e-12);
    expect(Array.from(pad.policy.actions)).toEqual(Array.from(tables.policy.actions));
  });

  it('a restriction that allows everything changes nothing', async () => {
    const [, scenario] = SCENARIOS[0];
    const u = await solveScenario(scenario);
    for (const r of [{ allowedBatchSizes: ALL }, { allowedBatchSizes: [...ALL].reverse(), batchSizeRule: 'ONLY_ALLOWED' as const }, { maxOngoingRequests: 64 }, { maxOngoingRequests: 32 }]) {
      const s = await solveScenario(restricted(scenario, r));
      expect(s.averageCost).toBe(u.averageCost);
      expect(s.averageCostLower).toBe(u.averageCostLower);
      expect(Array.from(s.policy.actions)).toEqual(Array.from(u.policy.actions));
    }
  });

  it('a cap on requests held below B is the smaller B', async () => {
    const [, scenario] = SCENARIOS[0];
    const capped = await solveScenario(restricted(scenario, { maxOngoingRequests: 24 }));
    const smaller = await solveScenario({ ...scenario, maxBatchSize: 24 });
    expect(capped.averageCost).toBe(smaller.averageCost);
    expect(Array.from(capped.policy.actions)).toEqual(Array.from(smaller.policy.actions));
    const u = await solveScenario(scenario);
    expect(capped.averageCost).toBeGreaterThan(u.averageCost);
  });
});
