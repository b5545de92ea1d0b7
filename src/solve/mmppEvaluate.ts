import type { ValidatedScenario } from '../model/scenario.js';
import { evaluateMmppPolicy } from '../policy/mmpp/evaluate.js';
import { broadcastPolicy, summarizeMmppPolicy, type MmppPolicy } from '../policy/mmpp/policy.js';
import { summarizePolicy, type Policy } from '../policy/policy.js';
import { arrivalSummary } from './mmppScenario.js';
import type { EvaluationResult } from './result.js';

/**
 * Exact evaluation under the scenario's MMPP arrivals (spec §7). A queue-length policy (what
 * `evaluate --policy` and the Evaluate RPC take) acts the same in every phase; a per-phase
 * MmppPolicy is evaluated as given.
 */
export function evaluateMmppScenarioPolicy(
  scenario: ValidatedScenario,
  policy: Policy | MmppPolicy,
  opts: { signal?: AbortSignal } = {},
): EvaluationResult {
  const p = scenario.params;
  const proc = p.arrivalProcess;
  if (!proc) throw new Error('evaluateMmppScenarioPolicy: the scenario has no arrivalProcess');
  const B = p.maxBatchSize;
  const pol = 'phases' in policy ? policy : broadcastPolicy(policy, proc.phases);
  const { stationary: _nu, levels: _n, phases: phaseFigures, ...figures } = evaluateMmppPolicy(p, proc, pol, { signal: opts.signal });
  const perPhase = summarizeMmppPolicy(pol, proc, B);
  const main = perPhase.reduce((a, c) => (c.probability > a.probability ? c : a));
  const { phase: _j, rate: _r, probability: _p, ...top } = main;
  return {
    ...figures,
    policy: { ...('phases' in policy ? top : summarizePolicy(policy, B)), phases: perPhase },
    arrivalProcess: arrivalSummary(proc),
    phaseFigures,
  };
}
