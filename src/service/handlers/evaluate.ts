import { policyFromProto } from '../convert/scenario.js';
import type { EvaluateRequest, EvaluateResponse } from '../messages.js';
import type { UnaryHandler } from '../rpc/context.js';
import { inField, requalify } from '../rpc/errorTable.js';
import { checkModelWork, onPool, parseScenarioOffThread, type ServiceDeps } from './deps.js';

/** Evaluate: exact f64 evaluation of a given policy, on a pool worker (large chains take a while). */
export function createEvaluateHandler(deps: ServiceDeps): UnaryHandler<EvaluateRequest, EvaluateResponse> {
  return async (request, ctx) => {
    const scenario = await parseScenarioOffThread(request.scenario, deps, ctx).catch((e: unknown) => {
      throw requalify('scenario.', e);
    });
    const policy = inField('', () => policyFromProto(request.policy, scenario.params.maxBatchSize));
    ctx.facts.maxBatchSize = scenario.params.maxBatchSize;
    ctx.facts.policyStates = policy.actions.length;
    checkModelWork(scenario, deps, ctx, 'the evaluation needs');
    try {
      return await deps.pool.submit('evaluate', { scenario, policy, percentiles: request.skipPercentiles !== true }, { ...onPool(ctx), bounded: true });
    } catch (e) {
      throw requalify('scenario.', e);
    }
  };
}
