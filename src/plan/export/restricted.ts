import { ScenarioError } from '../../model/errors.js';
import { applyRestriction, unrestrictedParams } from '../../model/restriction.js';
import type { ModelParams, Restriction } from '../../model/scenario.js';
import type { ConfigRestrictions } from './readConfig.js';
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

/**
 * The model a configuration file runs under (evaluate --from-config): the file's restrictions
 * (readConfig: TF Serving's allowed_batch_sizes, padded; a Ray cap below B) replace the scenario's
 * of the same kind, the scenario's others stand. Without any, the unrestricted model. A cap under
 * which nothing keeps up is left out: the setting itself is then refused by the simulation as
 * unstable, naming the rate it clears, which says more than a capacity error on the cap would.
 */
export function configuredParams(p: ModelParams, file: ConfigRestrictions | undefined): { params: ModelParams; notes: string[] } {
  const base = unrestrictedParams(p);
  const own = p.restriction;
  const notes: string[] = [];
  const fileAllowed = file?.allowedBatchSizes;
  const allowed = fileAllowed ?? own?.allowedBatchSizes ?? [];
  const batchSizeRule = fileAllowed ? 'PAD_TO_ALLOWED' : (own?.batchSizeRule ?? 'PAD_TO_ALLOWED');
  let cap = file?.maxOngoingRequests ?? own?.maxOngoingRequests ?? 0;
  if (fileAllowed && own && own.allowedBatchSizes.length > 0 && (own.allowedBatchSizes.join() !== fileAllowed.join() || own.batchSizeRule !== 'PAD_TO_ALLOWED')) {
    notes.push(`the file's allowed_batch_sizes (padded) replace the scenario's restrictions.allowedBatchSizes`);
  }
  if (file?.maxOngoingRequests !== undefined && own && own.maxOngoingRequests > 0 && own.maxOngoingRequests !== file.maxOngoingRequests) {
    notes.push(`the file's max_ongoing_requests ${file.maxOngoingRequests} replaces the scenario's restrictions.maxOngoingRequests ${own.maxOngoingRequests}`);
  }
  if (cap > 0 && !(base.arrivalRate * base.meanService[Math.min(cap, base.maxBatchSize)] < Math.min(cap, base.maxBatchSize))) cap = 0;
  if (allowed.length === 0 && cap === 0) return { params: base, notes };
  return { params: applyRestriction(base, { allowedBatchSizes: allowed, batchSizeRule, maxOngoingRequests: cap }), notes };
}
