import type { Policy } from '../../policy/policy.js';
import { parseSimulateRequest } from '../../sim/request.js';
import type { SimulateRequestMessage, SimulateResponse } from '../messages.js';
import type { UnaryHandler } from '../rpc/context.js';
import { inField } from '../rpc/errorTable.js';
import { checkModelWork, onPool, scenarioParser, type ServiceDeps } from './deps.js';
import { policyOf } from '../../solve/result.js';

/**
 * Simulate: validates the request (the scenario within the server's limits), gets the
 * optimal policy through the solve coordinator when asked for (so it is cached and shared
 * like any solve), and runs the simulation on a pool worker, where a long run can be
 * aborted without blocking the event loop.
 */
export function createSimulateHandler(deps: ServiceDeps): UnaryHandler<SimulateRequestMessage, SimulateResponse> {
  return async (request, ctx) => {
    const parse = await scenarioParser(request.scenario, deps, ctx);
    const call = inField('', () => parseSimulateRequest(request, parse));
    const B = call.scenario.params.maxBatchSize;
    ctx.facts.maxBatchSize = B;
    ctx.facts.policyKind = call.spec.kind;
    let optimal: Policy | undefined;
    if (call.spec.kind === 'optimal') {
      checkModelWork(call.scenario, deps, ctx, 'the solve for the optimal policy needs');
      const solved = await deps.coordinator.solve(call.scenario, { ...onPool(ctx), bounded: true });
      optimal = policyOf(solved.result.policy, B);
      ctx.facts.cached = solved.cached;
    }
    const result = await deps.pool.submit('simulate', { call, optimal }, { ...onPool(ctx), bounded: true });
    ctx.facts.requests = result.requests;
    return result;
  };
}
