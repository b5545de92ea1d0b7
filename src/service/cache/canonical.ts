import type { ValidatedScenario } from '../../model/scenario.js';

/**
 * The canonical form of a scenario: its validated numbers, not its spelling. Two requests
 * that differ only in key order, defaults left out, or a linear fit versus the table it
 * produces, or EXPONENTIAL versus GAMMA with cv 1 (the solve reads the law as its cv), get the same
 * key; anything the solve reads is in it. Numbers print in JavaScript's shortest round-trip form, so
 * the key is exact (no rounding merges different scenarios).
 */
export function canonicalKey(s: ValidatedScenario): string {
  const p = s.params;
  const v = s.solver;
  return JSON.stringify([
    ...rateAndTables(p),
    // The count law reads cv itself (its shape 1/cv², arrivals.ts), which m2 = l²(1 + cv²) can round
    // away (cv 0.5 and the next double give the same m2); DETERMINISTIC is cv 0, EXPONENTIAL cv 1.
    p.cv,
    p.idlePower,
    p.latencyWeight,
    p.powerWeight,
    [v.maxQueue, v.tolerance, v.maxIterations, v.backend, v.method],
    // MMPP arrivals (docs/model.md §7) are part of the scenario; Poisson keys are unchanged.
    ...(p.arrivalProcess ? [[Array.from(p.arrivalProcess.rates), Array.from(p.arrivalProcess.generator)]] : []),
    // The tables above are already the restricted ones; the action set is not in them.
    ...(p.restriction ? [['restricted', Array.from(p.restriction.serves.subarray(1))]] : []),
  ]);
}

/** The numbers of one stream of requests and its server: rate, B, and l(b), m2(b), P(b) for b = 1..B. */
export function rateAndTables(p: {
  readonly arrivalRate: number;
  readonly maxBatchSize: number;
  readonly meanService: Float64Array;
  readonly secondMoment: Float64Array;
  readonly busyPower: Float64Array;
}): unknown[] {
  return [p.arrivalRate, p.maxBatchSize, Array.from(p.meanService.subarray(1)), Array.from(p.secondMoment.subarray(1)), Array.from(p.busyPower.subarray(1))];
}

/**
 * Solutions can warm-start each other when their state spaces line up: the same max batch
 * size (actions 0..B) and the same solver settings that shape the result.
 */
export function shapeKey(s: ValidatedScenario): string {
  const v = s.solver;
  // MMPP solutions have (S+1)·M values: only those with the same number of phases line up.
  const phases = s.params.arrivalProcess ? [s.params.arrivalProcess.phases] : [];
  // An ONLY_ALLOWED action set lines up only with the same set (a start must use its actions).
  const r = s.params.restriction;
  const actions = r && r.batchSizeRule === 'ONLY_ALLOWED' && r.allowedBatchSizes.length > 0 ? [r.allowedBatchSizes.join(',')] : [];
  return JSON.stringify([s.params.maxBatchSize, v.backend, v.method, ...phases, ...actions]);
}

/**
 * Coordinates for "nearest": log arrival rate, log service times at b = 1 and b = B, the
 * service-time spread, and the log ratio of the objective weights (only the ratio shapes
 * the policy). Distance is the L1 norm over them.
 */
export function features(s: ValidatedScenario): Float64Array {
  const p = s.params;
  const B = p.maxBatchSize;
  const ratio = Math.log(Math.max(p.powerWeight, 1e-300) / Math.max(p.latencyWeight, 1e-300));
  return Float64Array.of(
    Math.log(p.arrivalRate),
    Math.log(p.meanService[1]),
    Math.log(p.meanService[B]),
    p.cv,
    0.5 * Math.max(-50, Math.min(50, ratio)),
  );
}

export function distance(a: Float64Array, b: Float64Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i] - b[i]);
  return d;
}
