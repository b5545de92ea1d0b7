import { parsePlanningRequest, type PlanningKind, type PlanningResponses } from '../../plan/request.js';
import type { UnaryHandler } from '../rpc/context.js';
import { inField, requalify } from '../rpc/errorTable.js';
import { checkModelWork, onPool, scenarioParser, type ServiceDeps } from './deps.js';

/**
 * What the four planning RPCs (Plan, Frontier, Fleet, Export) share: validate the request
 * with the server's scenario limits (field paths absolute, e.g. `scenario.arrivalRate`,
 * `latencyTarget`), then run it on a pool worker, where its many solves and simulations
 * neither block the event loop nor outlive a cancelled call. Each RPC's module binds its kind.
 */
export function createPlanningHandler<K extends PlanningKind>(kind: K, deps: ServiceDeps): UnaryHandler<unknown, PlanningResponses[K]> {
  return async (request, ctx) => {
    const parse = await scenarioParser((request as { scenario?: unknown } | null)?.scenario, deps, ctx);
    const call = inField('', () => parsePlanningRequest(kind, request, parse));
    ctx.facts.maxBatchSize = call.scenario.params.maxBatchSize;
    ctx.facts.planning = kind;
    checkModelWork(call.scenario, deps, ctx, 'each of its solves needs');
    try {
      return (await deps.pool.submit('planning', call, { ...onPool(ctx), bounded: true })) as PlanningResponses[K];
    } catch (e) {
      throw requalify('', e);
    }
  };
}
