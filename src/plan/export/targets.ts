import { TfServingPolicy } from '../../sim/policies/tfServing.js';
import { TritonPolicy } from '../../sim/policies/triton.js';
import type { SimPolicy } from '../../sim/policies/types.js';
import { CollectorPolicy } from './collector.js';

/**
 * The serving systems a policy can be exported to: how each batches (as a simulator
 * policy of one delay), the unit its delay is written in, and its native configuration
 * syntax.
 */
export type ExportTarget = 'triton' | 'tf-serving' | 'ray-serve' | 'torchserve';
export const EXPORT_TARGETS: readonly ExportTarget[] = ['triton', 'tf-serving', 'ray-serve', 'torchserve'];

/** One concrete setting: what the search varies (the delay) and what it fixes. */
export interface BatchingSetting {
  readonly target: ExportTarget;
  readonly maxBatchSize: number;
  /** Seconds, a whole number of the target's delay unit. */
  readonly delay: number;
  /** Triton only: preferred_batch_size (empty = none). */
  readonly preferredBatchSizes: readonly number[];
}

export interface TargetSpec {
  readonly label: string;
  /** Delay units per second: 1e6 for µs, 1e3 for TorchServe's ms (delays are whole units). */
  readonly perSecond: number;
  readonly simPolicy: (s: BatchingSetting) => SimPolicy;
  /** Variants of the fixed part to tune the delay for (Triton: with and without preferred sizes). */
  readonly variants: (maxBatchSize: number, controlLimit: number) => readonly (readonly number[])[];
}

const none = (): readonly (readonly number[])[] => [[]];

export const TARGETS: Readonly<Record<ExportTarget, TargetSpec>> = {
  triton: {
    label: 'Triton dynamic_batching',
    perSecond: 1e6,
    simPolicy: (s) => new TritonPolicy({ maxQueueDelay: s.delay, preferredBatchSizes: s.preferredBatchSizes, maxBatchSize: s.maxBatchSize }),
    // With every size from the control limit M up preferred, Triton sends min(queue, max) as
    // soon as M wait: the control-limit policy itself, the delay only capping waits below M.
    variants: (B, M) => (M >= 2 && M <= B ? [[], range(M, B)] : [[]]),
  },
  'tf-serving': {
    label: 'TF Serving batching_parameters',
    perSecond: 1e6,
    simPolicy: (s) => new TfServingPolicy({ batchTimeout: s.delay, maxBatchSize: s.maxBatchSize, allowedBatchSizes: [] }),
    variants: none,
  },
  'ray-serve': {
    label: 'Ray Serve @serve.batch',
    perSecond: 1e6,
    simPolicy: (s) => new CollectorPolicy(s.delay, s.maxBatchSize, `ray-serve:batch_wait_timeout_s=${s.delay},max_batch_size=${s.maxBatchSize}`),
    variants: none,
  },
  torchserve: {
    label: 'TorchServe batchSize / maxBatchDelay',
    perSecond: 1e3,
    simPolicy: (s) => new CollectorPolicy(s.delay, s.maxBatchSize, `torchserve:maxBatchDelay=${Math.round(s.delay * 1e3)}ms,batchSize=${s.maxBatchSize}`),
    variants: none,
  },
};

function range(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let b = lo; b <= hi; b++) out.push(b);
  return out;
}
