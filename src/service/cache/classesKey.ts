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

/** Bytes a cached classes result holds, to the accuracy that matters: its per-state policy arrays. */
export function classesResultBytes(r: ClassesSolveResult): number {
  return 16 * r.policy.batch.length + 1024;
}
