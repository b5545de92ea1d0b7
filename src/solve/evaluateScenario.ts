import { ScenarioError } from '../model/errors.js';
import { servesBatch } from '../model/restriction.js';
import type { ModelParams, ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import { latencyOfEvaluation } from '../latency/summary.js';
import { evaluatePolicy } from '../policy/evaluate.js';
import { checkPolicy, parsePolicySpec, type Policy } from '../policy/policy.js';
import { describeEvaluation, type EvaluationResult } from './result.js';

/**
 * Exact evaluation of a policy (a spec string such as `static:8`, or a Policy) for a scenario.
 * A one-phase policy acts the same in every phase of an MMPP scenario; a per-phase policy is
 * evaluated as given.
 */
export function evaluateScenarioPolicy(
  input: unknown,
  policy: string | Policy,
  opts: { signal?: AbortSignal; /** Response-time percentiles in the result (default true). */ percentiles?: boolean } = {},
): EvaluationResult {
  const scenario: ValidatedScenario =
    typeof input === 'object' && input !== null && 'params' in input ? (input as ValidatedScenario) : validateScenario(input);
  const p = scenario.params;
  const B = p.maxBatchSize;
  const pol = typeof policy === 'string' ? parsePolicySpec(policy, B) : policy;
  if (typeof policy !== 'string') checkPolicy(pol, B);
  checkServed(p, pol);
  const ev = evaluatePolicy(p, pol, { signal: opts.signal });
  const described = describeEvaluation(p, pol, ev);
  return opts.percentiles === false ? described : { ...described, ...latencyOfEvaluation(p, pol, ev) };
}

/**
 * Under ONLY_ALLOWED (docs/model.md §11.1) a policy may serve allowed sizes only: in its table and
 * in its tail rule min(s, tailBatch) from the table's end on.
 */
function checkServed(p: ModelParams, pol: Policy): void {
  if (!p.restriction || p.restriction.batchSizeRule !== 'ONLY_ALLOWED' || p.restriction.allowedBatchSizes.length === 0) return;
  const levels = Math.floor(pol.actions.length / (pol.phases ?? 1));
  const bad = (b: number): boolean => b > 0 && !servesBatch(p, b);
  const at = pol.actions.findIndex(bad);
  const past = Array.from({ length: Math.max(0, pol.tailBatch - levels) }, (_, i) => levels + i).find((s) => bad(Math.min(s, pol.tailBatch)));
  const b = at >= 0 ? pol.actions[at] : past !== undefined ? Math.min(past, pol.tailBatch) : 0;
  if (b > 0) {
    throw new ScenarioError('policy', `serves batches of ${b}, which restrictions.allowedBatchSizes (ONLY_ALLOWED: ${p.restriction.allowedBatchSizes.join(', ')}) does not allow`);
  }
}
