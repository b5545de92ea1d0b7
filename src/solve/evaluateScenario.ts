import type { ValidatedScenario } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import { evaluatePolicy } from '../policy/evaluate.js';
import { checkPolicy, parsePolicySpec, summarizePolicy, type Policy } from '../policy/policy.js';
import { evaluateMmppScenarioPolicy } from './mmppEvaluate.js';
import type { EvaluationResult } from './result.js';

/** Exact evaluation of a policy (a spec string such as `static:8`, or a Policy) for a scenario. */
export function evaluateScenarioPolicy(
  input: unknown,
  policy: string | Policy,
  opts: { signal?: AbortSignal } = {},
): EvaluationResult {
  const scenario: ValidatedScenario =
    typeof input === 'object' && input !== null && 'params' in input ? (input as ValidatedScenario) : validateScenario(input);
  const B = scenario.params.maxBatchSize;
  const pol = typeof policy === 'string' ? parsePolicySpec(policy, B) : policy;
  if (typeof policy !== 'string') checkPolicy(pol, B);
  // MMPP arrivals (spec §7): the same policy in every phase, evaluated under the MMPP.
  if (scenario.params.arrivalProcess) return evaluateMmppScenarioPolicy(scenario, pol, opts);
  const { stationary: _nu, states: _n, ...figures } = evaluatePolicy(scenario.params, pol, { signal: opts.signal });
  return { ...figures, policy: summarizePolicy(pol, B) };
}
