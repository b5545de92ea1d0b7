import { ScenarioError } from '../../model/errors.js';
import type { Restriction } from '../../model/scenario.js';
import type { ExportTarget, SettingVariant } from './targets.js';

/**
 * Which scenario restrictions (docs/model.md §11.1) a target runs, and the setting variants that
 * express them. TF Serving pads batches up to allowed_batch_sizes (PAD_TO_ALLOWED); Ray Serve's
 * max_ongoing_requests is the cap on requests held. A restriction a target cannot express is
 * refused: the restricted optimum would then not be what the target runs.
 */
export function checkTargetRuns(r: Restriction, target: ExportTarget): void {
  if (r.allowedBatchSizes.length > 0) {
    if (target !== 'tf-serving') {
      throw new ScenarioError('restrictions.allowedBatchSizes', `only tf-serving runs allowed batch sizes (allowed_batch_sizes, padded); ${target} would not run the restricted optimum`);
    }
    if (r.batchSizeRule !== 'PAD_TO_ALLOWED') {
      throw new ScenarioError('restrictions.batchSizeRule', 'tf-serving pads a batch up to the next allowed size: export with PAD_TO_ALLOWED (ONLY_ALLOWED is no target’s batcher)');
    }
  }
  if (r.maxOngoingRequests > 0 && target !== 'ray-serve') {
    throw new ScenarioError('restrictions.maxOngoingRequests', `only ray-serve caps the requests held (max_ongoing_requests); ${target} would not run the restricted optimum`);
  }
}

/** The variants to tune under the restriction: its allowed sizes, or its cap as the only max_ongoing_requests. */
export function restrictVariants(variants: readonly SettingVariant[], r: Restriction | undefined): readonly SettingVariant[] {
  if (!r) return variants;
  if (r.maxOngoingRequests > 0) return [{ preferredBatchSizes: [], maxOngoingRequests: r.maxOngoingRequests }];
  if (r.allowedBatchSizes.length > 0) return variants.map((v) => ({ ...v, allowedBatchSizes: r.allowedBatchSizes }));
  return variants;
}
