import { describe, expect, it } from 'vitest';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { classesOperator } from '../../src/model/classes/bellman.js';
import { compileClasses } from '../../src/model/classes/compile.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { valueIterate } from '../../src/solve/cpu/rvi.js';

const fit = { perItem: 0.0001438, base: 0.0018874 };
type Law = { distribution: 'DETERMINISTIC' | 'EXPONENTIAL' | 'GAMMA'; cv?: number };

function both(rate: number, law: Law, powerWeight: number, method?: 'VALUE_ITERATION') {
  const solver = method ? { method } : undefined;
  const single = { arrivalRate: rate, maxBatchSize: 32, serviceTime: { linear: fit, ...law }, power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } }, objective: { latencyWeight: 1, powerWeight }, ...(solver ? { solver } : {}) };
  const classes = {
    classes: [{ name: 'only', arrivalRate: rate, maxBatchSize: 32, serviceTime: { linear: fit, ...law }, power: { busyLinear: { perItem: 3, base: 80 } }, latencyWeight: 1 }],
    power: { idleWatts: 40 },
    objective: { powerWeight },
    ...(solver ? { solver } : {}),
  };
  return { single, classes };
}

describe('C = 1 equals the single-class solve bit for bit', () => {
  const cases: [string, number, Law, number, 'VALUE_ITERATION'?][] = [
    ['deterministic, λ = 4000, w_pow = 1e-3', 4000, { distribution: 'DETERMINISTIC' }, 1e-3],
    ['deterministic by value iteration (the shared RVI loop)', 4000, { distribution: 'DETERMINISTIC' }, 1e-4, 'VALUE_ITERATION'],
    ['exponential, λ = 2000', 2000, { distribution: 'EXPONENTIAL' }, 1e-4],
    ['gamma cv 0.7, λ = 2000', 2000, { distribution: 'GAMMA', cv: 0.7 }, 1e-4],
  ];
  for (const [name, rate, law, wPow, method] of cases) {
    it(name, async () => {
      const { single, classes } = both(rate, law, wPow, method);
      const a = await solveScenario(single);
      const b = await solveClassesScenario(classes);
      expect(Object.is(b.averageCostLower, a.averageCostLower)).toBe(true);
      expect(Object.is(b.averageCostUpper, a.averageCostUpper)).toBe(true);
      expect(b.policy.batch).toEqual(a.policy.actions);
      expect(b.classes[0].meanResponseTime).toBe(a.meanResponseTime);
      expect(b.solver.maxQueueTried).toEqual(a.solver.maxQueueTried.map((s) => [s]));
      // The percentiles (or why there are none) are the single-class solve's, in the restated solve.
      expect(a.latency ?? a.latencyUnavailable).toBeDefined();
      expect(b.single?.latency).toEqual(a.latency);
      expect(b.single?.latencyUnavailable).toEqual(a.latencyUnavailable);
      expect(b.latencyUnavailable).toBeUndefined();
      // And the certified interval holds the spec's reference value where it has one.
      if (rate === 4000 && wPow === 1e-3) expect(Math.abs(a.averageCostLower - 0.142151425903) / 0.142151425903).toBeLessThan(1e-9);
    }, 120_000);
  }
});

describe('the joint operator itself at C = 1', () => {
  it('agrees with the single-class compiled model at the same S (padded-box tail against §4 moments) to 1e-9', async () => {
    const { single, classes } = both(4000, { distribution: 'DETERMINISTIC' }, 1e-3, 'VALUE_ITERATION');
    const a = await solveScenario({ ...single, solver: { method: 'VALUE_ITERATION', maxQueue: 125, tolerance: 1e-11 } });
    const { params } = validateClassesScenario(classes);
    const out = await valueIterate(classesOperator(compileClasses(params, [125])), { tolerance: 1e-11, maxIterations: 0 });
    const g = a.averageCostLower;
    expect(Math.abs(out.lower - g) / g).toBeLessThan(1e-9);
    expect(Math.abs(out.upper - g) / g).toBeLessThan(1e-9);
    expect(Array.from(out.policy)).toEqual(a.policy.actions);
  }, 120_000);
});
