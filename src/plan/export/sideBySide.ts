import type { ModelParams } from '../../model/scenario.js';
import { CONFIDENCE_LEVEL } from '../../sim/result.js';
import type { SimPolicy } from '../../sim/policies/types.js';
import { simulateDetailed, tablePolicy, type DetailedSimulation, type SimulateOptions } from '../../sim/simulate.js';
import { meanHalfWidth } from '../../sim/stats.js';
import { policyOf, type SolveResult } from '../../solve/result.js';

export interface SimulatedCost {
  readonly averageCost: number;
  /** 95 % half-width (batch means); null with too few groups. */
  readonly halfWidth: number | null;
  readonly meanResponseTime: number;
  readonly meanPower: number;
  readonly p99: number;
  readonly requests: number;
  readonly seed: number;
}

/** A batcher against the optimal policy, both simulated on the same arrivals (common random numbers). */
export interface SideBySide {
  readonly optimal: {
    /** Exact g* of the optimal policy (docs/model.md §5). */
    readonly averageCost: number;
    readonly controlLimit: number;
    readonly isControlLimit: boolean;
    readonly simulated: SimulatedCost;
  };
  readonly exported: SimulatedCost;
  /**
   * The cost of using the batcher instead of the optimal policy: `difference` ± `halfWidth` is the
   * paired batch-means estimate (95 %), `relative` the same over the exact optimum; `vsExact` (the
   * batcher's simulated cost minus the exact optimum) carries the full noise of one simulation.
   */
  readonly gap: { readonly difference: number; readonly halfWidth: number | null; readonly relative: number; readonly vsExact: number };
  /** The batcher's longest simulated response time (s). */
  readonly maxResponse: number;
  /**
   * With a restricted scenario (docs/model.md §11.1): the unrestricted optimum, simulated on the
   * same arrivals, and the batcher's paired gap to it; `restrictionCost` = g*(restricted) −
   * g*(unrestricted), exact, ≥ 0 up to the solver tolerance.
   */
  readonly unrestricted?: {
    readonly averageCost: number;
    readonly controlLimit: number;
    readonly simulated: SimulatedCost;
    readonly gap: SideBySide['gap'];
    readonly restrictionCost: number;
  };
}

/** The unrestricted scenario and its solve, for SideBySide.unrestricted. */
export interface UnrestrictedReference {
  readonly params: ModelParams;
  readonly solved: SolveResult;
}

export function simulateSideBySide(p: ModelParams, policy: SimPolicy, solved: SolveResult, sim: SimulateOptions, reference?: UnrestrictedReference): SideBySide {
  const B = p.maxBatchSize;
  const exported = simulateDetailed(p, policy, sim);
  const optimal = simulateDetailed(p, tablePolicy(policyOf(solved.policy, B), B, 'optimal'), sim);
  const paired = (other: DetailedSimulation, g: number): SideBySide['gap'] => {
    const n = Math.min(exported.groupCost.length, other.groupCost.length);
    const diff = new Float64Array(n);
    for (let j = 0; j < n; j++) diff[j] = exported.groupCost[j] - other.groupCost[j];
    const difference = exported.result.averageCost - other.result.averageCost;
    return { difference, halfWidth: meanHalfWidth(diff, n, CONFIDENCE_LEVEL), relative: difference / g, vsExact: exported.result.averageCost - g };
  };
  const summary = (r: typeof exported.result): SimulatedCost => ({
    averageCost: r.averageCost,
    halfWidth: r.confidence.averageCost,
    meanResponseTime: r.meanResponseTime,
    meanPower: r.meanPower,
    p99: r.percentiles.p99,
    requests: r.requests,
    seed: r.seed,
  });
  const g = solved.averageCost;
  let unrestricted: SideBySide['unrestricted'];
  if (reference) {
    // The same seed gives the same arrivals (they depend on λ only): the gap is paired as above.
    const u = reference.params;
    const run = simulateDetailed(u, tablePolicy(policyOf(reference.solved.policy, u.maxBatchSize), u.maxBatchSize, 'optimal'), sim);
    const gu = reference.solved.averageCost;
    unrestricted = { averageCost: gu, controlLimit: reference.solved.policy.controlLimit, simulated: summary(run.result), gap: paired(run, gu), restrictionCost: g - gu };
  }
  return {
    optimal: { averageCost: g, controlLimit: solved.policy.controlLimit, isControlLimit: solved.policy.isControlLimit, simulated: summary(optimal.result) },
    exported: summary(exported.result),
    gap: paired(optimal, g),
    maxResponse: exported.result.percentiles.max,
    ...(unrestricted ? { unrestricted } : {}),
  };
}
