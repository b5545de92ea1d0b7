import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import type { ClassesSolveResult } from '../../solve/classes/result.js';
import { rateAndTables } from './canonical.js';

/**
 * The canonical form of a scenario with classes (docs/model.md §10), as canonicalKey is for one
 * class: its validated numbers (each class in order, names included since results carry them),
 * not its spelling, in JavaScript's shortest round-trip form, so equal keys mean equal scenarios.
 */
export function classesCanonicalKey(s: ValidatedClassesScenario): string {
  const p = s.params;
  const v = s.solver;
  return JSON.stringify([
    'classes',
    p.classes.map((c) => [c.name, ...rateAndTables(c), c.distribution, c.cv, c.latencyWeight, c.maxQueue]),
    p.idlePower,
    p.powerWeight,
    [v.maxQueue, v.tolerance, v.maxIterations, v.backend, v.method],
  ]);
}

/**
 * Scenarios whose solves can start from one another's values: the same classes in number and
 * order, each with the same B, service law and fixed maxQueue (the box's layout and the kernels'
 * form); rates, weights and power may differ.
 */
export function classesShapeKey(s: ValidatedClassesScenario): string {
  return JSON.stringify(['classes-shape', s.params.classes.map((c) => [c.maxBatchSize, c.distribution, c.maxQueue])]);
}

/** Bytes a cached classes result holds, to the accuracy that matters: its per-state policy arrays. */
export function classesResultBytes(r: ClassesSolveResult): number {
  return 16 * r.policy.batch.length + 1024;
}
