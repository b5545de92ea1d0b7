import type { ClassesSolveResult } from '../../../src/solve/classes/result.js';
import { scenarioOf, type CaseClass } from '../../classes/support.js';

/** Two classes of the service tests (docs/model.md §10): one deterministic, one gamma. */
export const classA: CaseClass = { name: 'a', rate: 150, B: 3, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1 };
export const classB: CaseClass = { ...classA, name: 'b', rate: 80, B: 2, law: 'GAMMA', cv: 0.8, w: 2 };

/** Small and fixed boxes: a second or so per solve. */
export const twoClasses = scenarioOf([{ ...classA, S: 18 }, { ...classB, S: 14 }], 40, 1e-3, 1e-9) as { classes: Array<Record<string, unknown>>; objective: { powerWeight: number } };

/** The two classes with automatic boxes: the first is far above 200 joint states (S_c ≥ 16 each: ≥ 289), for servers with maxStates = 200. */
export const autoClasses = scenarioOf([classA, classB], 40, 1e-3, 1e-9);

/** The result without its wall times (the only fields two solves of one scenario may differ in). */
export function comparableClasses(r: ClassesSolveResult): unknown {
  return { ...r, solver: { ...r.solver, seconds: 0 }, ...(r.single ? { single: { ...r.single, solver: { ...r.single.solver, seconds: 0 } } } : {}) };
}
