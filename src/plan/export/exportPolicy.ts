import { throwIfAborted } from '../../model/errors.js';
import type { Backend } from '../../model/scenario.js';
import { simulateDetailed, tablePolicy } from '../../sim/simulate.js';
import { CONFIDENCE_LEVEL } from '../../sim/result.js';
import { meanHalfWidth } from '../../sim/stats.js';
import { solveScenario } from '../../solve/solveScenario.js';
import { asValidated } from '../frontier.js';
import { assumptions, renderSetting } from './render.js';
import { TARGETS, type BatchingSetting, type ExportTarget } from './targets.js';
import { delayRange, tuneDelay, type DelayTrial } from './tune.js';
import { policyOf } from '../../solve/result.js';

/**
 * Export: the scenario's optimal policy translated into a serving system's batching
 * settings. The system's batcher is a max batch size plus a delay (and, for Triton,
 * preferred sizes); the delay is tuned in simulation (tune.ts), then the chosen setting and
 * the optimal policy are simulated once more on a fresh seed, side by side, for the gap.
 */
export interface ExportOptions {
  /** Requests per tuning simulation (default 2·10⁵). */
  readonly tuningRequests?: number;
  /** Requests of the final simulations (default 10⁶). */
  readonly requests?: number;
  /** Seed of the final simulations; tuning uses seed + 1 (default 1). */
  readonly seed?: number;
  readonly modelName?: string;
  readonly signal?: AbortSignal;
  readonly backend?: Backend;
  /** Called as the work moves on (solve, each tuning simulation, final simulations), for progress lines. */
  readonly onProgress?: (step: string) => void;
}

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

export interface ExportResult {
  readonly target: ExportTarget;
  readonly label: string;
  readonly setting: BatchingSetting;
  /** The setting in the target's native configuration syntax. */
  readonly config: string;
  /** The knobs the configuration sets because the simulated model assumes them, in words. */
  readonly assumptions: string[];
  readonly optimal: {
    /** Exact g* of the optimal policy (docs/model.md §5). */
    readonly averageCost: number;
    readonly controlLimit: number;
    readonly isControlLimit: boolean;
    readonly simulated: SimulatedCost;
  };
  /** The exported setting simulated on the final seed. */
  readonly exported: SimulatedCost;
  /**
   * The cost of using the setting instead of the optimal policy. Both are simulated on the same
   * arrivals, so their difference is far less noisy than either cost: `difference` ± `halfWidth`
   * is the paired batch-means estimate (95 %), `relative` the same over the exact optimum.
   * `vsExact` (the setting's simulated cost minus the exact optimum) carries the full noise of
   * one simulation and can even come out negative on short runs.
   */
  readonly gap: {
    readonly difference: number;
    readonly halfWidth: number | null;
    readonly relative: number;
    readonly vsExact: number;
  };
  /** Every delay simulated while tuning (tuning seed). */
  readonly trials: DelayTrial[];
}

export async function exportPolicy(input: unknown, target: ExportTarget, o: ExportOptions = {}): Promise<ExportResult> {
  const scenario = asValidated(input);
  const p = scenario.params;
  const B = p.maxBatchSize;
  const seed = o.seed ?? 1;
  const requests = o.requests ?? 1_000_000;
  const tuning = { requests: o.tuningRequests ?? 200_000, seed: seed + 1, signal: o.signal, onProgress: o.onProgress };
  o.onProgress?.('solving the optimal policy');
  const solved = await solveScenario(scenario, { signal: o.signal, backend: o.backend });
  const M = solved.policy.controlLimit;
  const spec = TARGETS[target];
  const range = delayRange(p, M);
  let best: DelayTrial | undefined;
  const trials: DelayTrial[] = [];
  for (const variant of spec.variants(B, M)) {
    const t = await tuneDelay(p, { target, maxBatchSize: B, ...variant }, range, tuning);
    trials.push(...t.trials);
    if (!best || t.best.averageCost < best.averageCost || (t.best.averageCost === best.averageCost && t.best.delay < best.delay)) best = t.best;
  }
  const setting: BatchingSetting = {
    target,
    maxBatchSize: B,
    delay: best!.delay,
    preferredBatchSizes: best!.preferredBatchSizes,
    ...(best!.maxOngoingRequests === undefined ? {} : { maxOngoingRequests: best!.maxOngoingRequests }),
  };
  throwIfAborted(o.signal);
  const sim = { requests, seed, signal: o.signal };
  o.onProgress?.(`simulating the setting and the optimal policy (${requests} requests each)`);
  const exported = simulateDetailed(p, spec.simPolicy(setting), sim);
  const optimal = simulateDetailed(p, tablePolicy(policyOf(solved.policy, B), B, 'optimal'), sim);
  const n = Math.min(exported.groupCost.length, optimal.groupCost.length);
  const diff = new Float64Array(n);
  for (let j = 0; j < n; j++) diff[j] = exported.groupCost[j] - optimal.groupCost[j];
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
  // Room in TF Serving's queue for the longest backlog seen: requests that can wait ≈ λ·(max response).
  const maxEnqueuedBatches = Math.max(10, Math.ceil((p.arrivalRate * exported.result.percentiles.max) / B) + 1);
  const difference = exported.result.averageCost - optimal.result.averageCost;
  const note =
    `batchwise export for λ = ${p.arrivalRate} /s, B = ${B}: simulated cost ${difference >= 0 ? '+' : ''}` +
    `${((100 * difference) / g).toFixed(2)} % over the optimal policy`;
  return {
    target,
    label: spec.label,
    setting,
    config: renderSetting(setting, { modelName: o.modelName ?? 'model', maxEnqueuedBatches, note }),
    assumptions: assumptions(setting, { maxEnqueuedBatches }),
    optimal: { averageCost: g, controlLimit: M, isControlLimit: solved.policy.isControlLimit, simulated: summary(optimal.result) },
    exported: summary(exported.result),
    gap: {
      difference,
      halfWidth: meanHalfWidth(diff, n, CONFIDENCE_LEVEL),
      relative: difference / g,
      vsExact: exported.result.averageCost - g,
    },
    trials,
  };
}
