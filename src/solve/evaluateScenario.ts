import type { ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
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
  opts: { signal?: AbortSignal } = {},
): EvaluationResult {
  const scenario: ValidatedScenario =
    typeof input === 'object' && input !== null && 'params' in input ? (input as ValidatedScenario) : validateScenario(input);
  const p = scenario.params;
  const B = p.maxBatchSize;
  const pol = typeof policy === 'string' ? parsePolicySpec(policy, B) : policy;
  if (typeof policy !== 'string') checkPolicy(pol, B);
  return describeEvaluation(p, pol, evaluatePolicy(p, pol, { signal: opts.signal }));
}
