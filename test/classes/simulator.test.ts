import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { singleClassParams, validateClassesScenario } from '../../src/model/classes/validate.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { jointPolicies } from '../../src/sim/joint/chooser.js';
import { OptimalChooser, RoundRobinChooser } from '../../src/sim/joint/rules.js';
import { simulateClasses, type ClassesSimulation } from '../../src/sim/joint/simulate.js';
import { simulate } from '../../src/sim/simulate.js';
import { controlLimitPolicy } from '../../src/policy/policy.js';
import { studentTQuantile } from '../../src/sim/stats.js';
import { scenarioOf, type CaseClass } from './support.js';

/**
 * docs/model.md §10 / issue 19, "done": the simulator (src/sim/engine, one server, C classes) run
 * under the exact optimal joint policy reproduces the solve's per-class E[R_c], E[P] and g. The
 * reference is the solve's stationary-law figures, computed without the simulator.
 */

const two = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'two-classes.json'), 'utf8')) as unknown;

const balanced: CaseClass[] = [0, 1].map((i) => ({
  name: `c${i}`,
  rate: 400,
  B: 4,
  perItem: 0.00015,
  base: 0.0019,
  law: 'DETERMINISTIC',
  powerPerItem: 3,
  powerBase: 80,
  w: i === 0 ? 1 : 1.5,
}));

/** The 99.9 % interval from the simulator's 95 % half-width (several figures are checked at once). */
function wide(sim: ClassesSimulation, half: number | null): number {
  const G = sim.groupCost.length;
  expect(half).not.toBeNull();
  return (half! * studentTQuantile(0.9995, G - 1)) / studentTQuantile(0.975, G - 1);
}

describe('the simulator under the exact optimal joint policy', () => {
  for (const [label, raw] of [
    ['examples/two-classes.json', two],
    ['two balanced classes, weights 1 and 1.5', scenarioOf(balanced, 40, 1e-4, 1e-8)],
  ] as const) {
    it(`reproduces the solve's E[R_c], E[P] and g: ${label}`, async () => {
      const { params } = validateClassesScenario(raw);
      const exact = await solveClassesScenario(raw);
      const B = params.classes.map((c) => c.maxBatchSize);
      const sim = simulateClasses(params, jointPolicies(new OptimalChooser(exact.policy), B), { requests: 600_000, seed: 7, ciBatches: 30 });
      exact.classes.forEach((c, i) => {
        const s = sim.classes[i];
        const h = wide(sim, s.meanResponseCi);
        // The interval is informative (a few % of the mean) and holds the exact value.
        expect(h).toBeLessThan(0.05 * c.meanResponseTime);
        expect(Math.abs(s.meanResponseTime - c.meanResponseTime)).toBeLessThan(h);
      });
      expect(Math.abs(sim.meanPower - exact.meanPower)).toBeLessThan(wide(sim, sim.meanPowerCi));
      const hg = wide(sim, sim.averageCostCi);
      expect(hg).toBeLessThan(0.05 * exact.averageCost);
      expect(Math.abs(sim.averageCost - exact.averageCost)).toBeLessThan(hg);
    });
  }
});

describe('one class through the joint path', () => {
  const one: CaseClass[] = [{ name: 'only', rate: 300, B: 4, perItem: 0.0001438, base: 0.0018874, law: 'GAMMA', cv: 0.7, powerPerItem: 3, powerBase: 80, w: 1 }];
  const raw = scenarioOf(one, 40, 1e-4);

  it('the optimal table equals the single-server simulator bit for bit, same seed', async () => {
    const { params } = validateClassesScenario(raw);
    const exact = await solveClassesScenario(raw);
    const joint = simulateClasses(params, jointPolicies(new OptimalChooser(exact.policy), [4]), { requests: 200_000, seed: 11 });
    const single = simulate(singleClassParams(params), { actions: Int32Array.from(exact.single!.policy.actions), tailBatch: 4 }, { requests: 200_000, seed: 11 });
    expect(joint.requests).toBe(single.requests);
    expect(joint.classes[0].meanResponseTime).toBe(single.meanResponseTime);
    expect(joint.meanPower).toBe(single.meanPower);
    expect(joint.averageCost).toBe(single.averageCost);
  });

  it('a round-robin control limit equals control-limit:M of the single-server simulator', () => {
    const { params } = validateClassesScenario(raw);
    const joint = simulateClasses(params, jointPolicies(new RoundRobinChooser([3], [4]), [4]), { requests: 100_000, seed: 5 });
    const single = simulate(singleClassParams(params), controlLimitPolicy(3, 4), { requests: 100_000, seed: 5 });
    expect(joint.classes[0].meanResponseTime).toBe(single.meanResponseTime);
    expect(joint.meanPower).toBe(single.meanPower);
  });
});
