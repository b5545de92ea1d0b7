import { RayServePolicy } from '../../sim/policies/rayServe.js';
import { TfServingPolicy } from '../../sim/policies/tfServing.js';
import { TorchServePolicy } from '../../sim/policies/torchServe.js';
import { TritonPolicy } from '../../sim/policies/triton.js';
import type { SimPolicy } from '../../sim/policies/types.js';
import type { ExportTarget } from './targetNames.js';

export { EXPORT_TARGETS, type ExportTarget } from './targetNames.js';

/** One concrete setting: what the search varies (the delay) and what it fixes. */
export interface BatchingSetting {
  readonly target: ExportTarget;
  readonly maxBatchSize: number;
  /** Seconds, a whole number of the target's delay unit. */
  readonly delay: number;
  /** Triton only: preferred_batch_size (empty = none). */
  readonly preferredBatchSizes: readonly number[];
  /** Ray Serve only: the deployment's max_ongoing_requests. */
  readonly maxOngoingRequests?: number;
  /** TF Serving only: allowed_batch_sizes (absent or empty = any size), batches padded up to them. */
  readonly allowedBatchSizes?: readonly number[];
}

/** The fixed part of a setting that the delay is tuned for. */
export type SettingVariant = Pick<BatchingSetting, 'preferredBatchSizes' | 'maxOngoingRequests' | 'allowedBatchSizes'>;

export interface TargetSpec {
  readonly label: string;
  /** Delay units per second: 1e6 for µs, 1e3 for TorchServe's ms (delays are whole units). */
  readonly perSecond: number;
  /** The least delay worth exporting, in units: TorchServe's 0 ms caps batches at 2 (TorchServePolicy). */
  readonly minUnits: number;
  readonly simPolicy: (s: BatchingSetting) => SimPolicy;
  /** Variants of the fixed part to tune the delay for (Triton: with and without preferred sizes; Ray: max_ongoing_requests). */
  readonly variants: (maxBatchSize: number, controlLimit: number) => readonly SettingVariant[];
}

const none = (): readonly SettingVariant[] => [{ preferredBatchSizes: [] }];

/**
 * The serving systems a policy can be exported to: how each batches (as a simulator
 * policy of one delay), the unit its delay is written in, and its native configuration
 * syntax.
 */
export const TARGETS: Readonly<Record<ExportTarget, TargetSpec>> = {
  triton: {
    label: 'Triton dynamic_batching',
    perSecond: 1e6,
    minUnits: 0,
    simPolicy: (s) => new TritonPolicy({ maxQueueDelay: s.delay, preferredBatchSizes: s.preferredBatchSizes, maxBatchSize: s.maxBatchSize }),
    // With every size from the control limit M up preferred, Triton sends min(queue, max) as
    // soon as M wait: the control-limit policy itself, the delay only capping waits below M.
    variants: (B, M) => (M >= 2 && M <= B ? [{ preferredBatchSizes: [] }, { preferredBatchSizes: range(M, B) }] : [{ preferredBatchSizes: [] }]),
  },
  'tf-serving': {
    label: 'TF Serving batching_parameters',
    perSecond: 1e6,
    minUnits: 0,
    simPolicy: (s) => new TfServingPolicy({ batchTimeout: s.delay, maxBatchSize: s.maxBatchSize, allowedBatchSizes: s.allowedBatchSizes ?? [] }),
    variants: none,
  },
  'ray-serve': {
    label: 'Ray Serve @serve.batch',
    perSecond: 1e6,
    minUnits: 0,
    simPolicy: (s) => new RayServePolicy({ batchWaitTimeout: s.delay, maxBatchSize: s.maxBatchSize, maxOngoingRequests: s.maxOngoingRequests ?? s.maxBatchSize }),
    // Ray's default max_ongoing_requests (5) would cap every batch at 5; B is the least that lets
    // a batch fill, 2B also lets the next batch fill while one is in service.
    variants: (B) => [B, 2 * B].map((m) => ({ preferredBatchSizes: [], maxOngoingRequests: m })),
  },
  torchserve: {
    label: 'TorchServe batchSize / maxBatchDelay',
    perSecond: 1e3,
    minUnits: 1,
    simPolicy: (s) => new TorchServePolicy({ maxBatchDelayMs: Math.round(s.delay * 1e3), batchSize: s.maxBatchSize }),
    variants: none,
  },
};

function range(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let b = lo; b <= hi; b++) out.push(b);
  return out;
}
