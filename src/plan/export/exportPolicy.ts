import { throwIfAborted } from '../../model/errors.js';
import type { Backend } from '../../model/scenario.js';
import { solveScenario } from '../../solve/solveScenario.js';
import { asValidated } from '../frontier.js';
import type { MergeResult } from './merge.js';
import { assumptions, renderSetting } from './render.js';
import { TARGETS, type BatchingSetting, type ExportTarget } from './targets.js';
import { delayRange, tuneDelay, type DelayTrial } from './tune.js';
import { checkTargetRuns, restrictVariants } from './restricted.js';
import { simulateSideBySide, type SideBySide, type SimulatedCost, type UnrestrictedReference } from './sideBySide.js';

export type { SimulatedCost } from './sideBySide.js';

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
  /** An existing configuration of the target to write the setting into (merge.ts); read before any simulation. */
  readonly merge?: { readonly text: string; readonly file: string };
}

export interface ExportResult {
  readonly target: ExportTarget;
  readonly label: string;
  readonly setting: BatchingSetting;
  /** The setting in the target's native configuration syntax. */
  readonly config: string;
  /** The knobs the configuration sets because the simulated model assumes them, in words. */
  readonly assumptions: string[];
  readonly optimal: SideBySide['optimal'];
  /** The exported setting simulated on the final seed. */
  readonly exported: SimulatedCost;
  /** The cost of using the setting instead of the optimal policy (SideBySide.gap); with restrictions, the restricted optimum. */
  readonly gap: SideBySide['gap'];
  /** With scenario restrictions (docs/model.md §11.1): the unrestricted optimum and the setting's gap to it. */
  readonly unrestricted?: SideBySide['unrestricted'];
  /** Every delay simulated while tuning (tuning seed). */
  readonly trials: DelayTrial[];
  /** With options.merge: the user's file with the setting merged in, and what changed. */
  readonly merged?: MergeResult;
}

export async function exportPolicy(input: unknown, target: ExportTarget, o: ExportOptions = {}): Promise<ExportResult> {
  const scenario = asValidated(input);
  const p = scenario.params;
  const B = p.maxBatchSize;
  // A restriction the target cannot run is refused before any work (restricted.ts).
  if (p.restriction) checkTargetRuns(p.restriction, target);
  const seed = o.seed ?? 1;
  const requests = o.requests ?? 1_000_000;
  // A file that cannot be merged is refused before minutes of simulation (a probe setting of the same shape).
  // Loaded only for a merge: the YAML parser it brings is not needed otherwise.
  const mergeConfig = o.merge ? (await import('./merge.js')).mergeConfig : undefined;
  if (o.merge && mergeConfig) mergeConfig({ target, maxBatchSize: B, delay: 0.001, preferredBatchSizes: [] }, o.merge.text, o.merge.file, { modelName: o.modelName, maxEnqueuedBatches: 10 });
  const tuning = { requests: o.tuningRequests ?? 200_000, seed: seed + 1, signal: o.signal, onProgress: o.onProgress };
  o.onProgress?.('solving the optimal policy');
  const solved = await solveScenario(scenario, { signal: o.signal, backend: o.backend, percentiles: false });
  let reference: UnrestrictedReference | undefined;
  if (p.restriction) {
    o.onProgress?.('solving the unrestricted optimal policy');
    const params = p.restriction.unrestricted;
    reference = { params, solved: await solveScenario({ params, solver: scenario.solver }, { signal: o.signal, backend: o.backend, percentiles: false }) };
  }
  const M = solved.policy.controlLimit;
  const spec = TARGETS[target];
  const range = delayRange(p, M);
  let best: DelayTrial | undefined;
  const trials: DelayTrial[] = [];
  for (const variant of restrictVariants(spec.variants(B, M), p.restriction)) {
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
    ...(best!.allowedBatchSizes === undefined ? {} : { allowedBatchSizes: best!.allowedBatchSizes }),
  };
  throwIfAborted(o.signal);
  o.onProgress?.(`simulating the setting and the optimal policy (${requests} requests each)`);
  const side = simulateSideBySide(p, spec.simPolicy(setting), solved, { requests, seed, signal: o.signal }, reference);
  // Room in TF Serving's queue for the longest backlog seen: requests that can wait ≈ λ·(max response).
  const maxEnqueuedBatches = Math.max(10, Math.ceil((p.arrivalRate * side.maxResponse) / B) + 1);
  const signed = (x: number): string => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(2)} %`;
  const note =
    `batchwise export for λ = ${p.arrivalRate} /s, B = ${B}: simulated cost ${signed(side.gap.relative)} over the ` +
    (side.unrestricted ? `restricted optimum, ${signed(side.unrestricted.gap.relative)} over the unrestricted one` : 'optimal policy');
  return {
    target,
    label: spec.label,
    setting,
    config: renderSetting(setting, { modelName: o.modelName ?? 'model', maxEnqueuedBatches, note }),
    assumptions: assumptions(setting, { maxEnqueuedBatches }),
    optimal: side.optimal,
    exported: side.exported,
    gap: side.gap,
    ...(side.unrestricted ? { unrestricted: side.unrestricted } : {}),
    trials,
    ...(o.merge && mergeConfig ? { merged: mergeConfig(setting, o.merge.text, o.merge.file, { modelName: o.modelName, maxEnqueuedBatches }) } : {}),
  };
}
