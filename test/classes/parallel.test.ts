import { describe, expect, it } from 'vitest';
import { classesOperator, type Overflow } from '../../src/model/classes/bellman.js';
import { compileClasses } from '../../src/model/classes/compile.js';
import { PARALLEL_MIN_STATES, ParallelSweeps, sweepThreads } from '../../src/model/classes/parallelStep.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { rng } from '../helpers/random.js';
import { scenarioOf, type CaseClass } from './support.js';

const det: CaseClass = { name: 'a', rate: 200, B: 4, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1 };
const CASES: { name: string; cls: CaseClass[]; S: number[] }[] = [
  { name: 'two classes, product kernels', cls: [det, { ...det, name: 'b', rate: 120, B: 3, perItem: 0.002, w: 2 }], S: [30, 25] },
  { name: 'two classes, mixture kernels', cls: [{ ...det, law: 'GAMMA', cv: 0.5 }, { ...det, name: 'b', rate: 100, B: 3, law: 'EXPONENTIAL', w: 0.5 }], S: [20, 18] },
  { name: 'three classes', cls: [{ ...det, rate: 90, B: 2 }, { ...det, name: 'b', rate: 60, B: 2, perItem: 0.002, w: 2 }, { ...det, name: 'c', rate: 40, B: 2, perItem: 0.003, w: 0.5 }], S: [7, 6, 5] },
];

describe('the joint step on worker threads over state blocks', () => {
  for (const c of CASES) {
    it(`${c.name}: three threads give the one-thread step bit for bit, for both overflow rules`, async () => {
      const model = compileClasses(validateClassesScenario(scenarioOf(c.cls, 40, 1e-3)).params, c.S);
      const r = rng(7);
      const h = Float64Array.from({ length: model.states }, (_, x) => Math.sqrt(x) * 1e-3 * (0.9 + 0.2 * r()));
      const engine = await ParallelSweeps.start(model, 3);
      try {
        expect(engine.threads).toBe(3);
        for (const overflow of ['extrapolate', 'lump'] as Overflow[]) {
          const one = { gap: new Float64Array(model.states), policy: new Int32Array(model.states) };
          const three = { gap: new Float64Array(model.states), policy: new Int32Array(model.states) };
          classesOperator(model, overflow).step(h, one.gap, one.policy);
          const op = engine.operator(overflow);
          op.step(h, three.gap, three.policy);
          // Twice: the second step reuses the workers and the shared buffers.
          op.step(h, three.gap, three.policy);
          expect(three.gap).toEqual(one.gap);
          expect(three.policy).toEqual(one.policy);
          expect(new Set(one.policy).size).toBeGreaterThan(1);
        }
      } finally {
        engine.close();
      }
    }, 60_000);
  }

  it('a whole solve on two threads returns the one-thread result (same interval, policy and sweeps) and says how many threads ran', async () => {
    const raw = scenarioOf(CASES[0].cls, 40, 1e-3, 1e-9);
    const one = await solveClassesScenario(raw, { threads: 1 });
    const two = await solveClassesScenario(raw, { threads: 2 });
    expect(one.solver.threads).toBe(1);
    expect(two.solver.threads).toBe(2);
    expect(two.averageCostLower).toBe(one.averageCostLower);
    expect(two.averageCostUpper).toBe(one.averageCostUpper);
    expect(two.policy.batch).toEqual(one.policy.batch);
    expect(two.solver.totalIterations).toBe(one.solver.totalIterations);
  }, 120_000);

  it('threads by default: one below PARALLEL_MIN_STATES states, the cores (at most 8) from there on', () => {
    expect(sweepThreads(PARALLEL_MIN_STATES - 1)).toBe(1);
    expect(sweepThreads(PARALLEL_MIN_STATES)).toBeGreaterThanOrEqual(1);
    expect(sweepThreads(PARALLEL_MIN_STATES)).toBeLessThanOrEqual(8);
    expect(sweepThreads(10, 3)).toBe(3);
  });
});
