import { parseFleetPlanRequest } from '../../fleet/request.js';
import { fleetPlanToProto } from '../convert/fleet.js';
import type { UnaryHandler } from '../rpc/context.js';
import { inField, requalify } from '../rpc/errorTable.js';
import { onPool, type ServiceDeps } from './deps.js';
import { parseFleetMessage } from './fleetSimulate.js';

/**
 * FleetPlan: the best class segregation with optimal batching by exact solves, or with
 * `least` the fewest accelerators of one group meeting every class target (`batchwise fleet
 * plan [--least]`), on a pool worker (many solves; a cancelled call stops between and within them).
 */
export function createFleetPlanHandler(deps: ServiceDeps): UnaryHandler<unknown, unknown> {
  return async (request, ctx) => {
    const call = inField('', () => parseFleetPlanRequest(request, (raw) => parseFleetMessage(raw, deps.limits)));
    Object.assign(ctx.facts, { classes: call.fleet.classes.length, accelerators: call.fleet.accelerators, least: call.least !== undefined });
    try {
      const answer = await deps.pool.submit('fleetPlan', call, { ...onPool(ctx), bounded: true });
      ctx.facts.solves = answer.plan.solves;
      return fleetPlanToProto(answer);
    } catch (e) {
      throw requalify('', e);
    }
  };
}
