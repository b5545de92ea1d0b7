import { ScenarioError } from '../model/errors.js';
import type { ModelParams, ValidatedScenario } from '../model/scenario.js';
import type { Policy } from '../policy/policy.js';
import type { SolveResult } from './result.js';
import { solveScenarioDetailed } from './solveScenario.js';

export interface MmppPolicies {
  /** The MMPP-optimal policy, one action per (queue, phase). */
  readonly optimal: Policy;
  readonly result: SolveResult;
  /** The policy solved for the mean rate λ̄ as if arrivals were Poisson (what a Poisson model would deploy). */
  readonly poissonModel: Policy;
  readonly poissonResult: SolveResult;
}

/** The scenario with its arrival process replaced by Poisson arrivals at the same mean rate. */
export function poissonAtMeanRate(s: ValidatedScenario): ValidatedScenario {
  const { arrivalProcess: _drop, ...params } = s.params;
  return { params: params as ModelParams, solver: s.solver };
}

/** Solves a bursty scenario twice: under its MMPP (docs/model.md §7) and as Poisson at λ̄ (docs/model.md §2). */
export async function solveMmppAndPoisson(s: ValidatedScenario, opts: { signal?: AbortSignal } = {}): Promise<MmppPolicies> {
  const proc = s.params.arrivalProcess;
  if (!proc) throw new ScenarioError('arrivalProcess', 'is required to compare against the Poisson model');
  const B = s.params.maxBatchSize;
  const mmpp = await solveScenarioDetailed(s, { ...opts, percentiles: false });
  const pois = await solveScenarioDetailed(poissonAtMeanRate(s), { ...opts, percentiles: false });
  return {
    optimal: { phases: proc.phases, actions: mmpp.warmStart.policy, tailBatch: B },
    result: mmpp.result,
    poissonModel: { actions: pois.warmStart.policy, tailBatch: B },
    poissonResult: pois.result,
  };
}
