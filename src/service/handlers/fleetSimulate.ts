import { LimitError } from '../../model/errors.js';
import type { FleetParams } from '../../fleet/scenario.js';
import { parseFleetField, parseFleetSimulateRequest } from '../../fleet/request.js';
import { fleetFromProto, fleetRunToProto, weightsFromProto } from '../convert/fleet.js';
import type { ServiceLimits } from '../config.js';
import type { UnaryHandler } from '../rpc/context.js';
import { inField, requalify } from '../rpc/errorTable.js';
import { onPool, type ServiceDeps } from './deps.js';

/** Decoded proto FleetScenario → validated fleet within the server's limits; field paths under `fleet.`. */
export function parseFleetMessage(raw: unknown, limits: ServiceLimits): FleetParams {
  const f = parseFleetField(raw === undefined || raw === null ? raw : fleetFromProto(raw));
  f.kinds.forEach((k, i) => {
    if (k.maxBatchSize > limits.maxBatchSize) {
      throw new LimitError(`fleet.accelerators[${i}].maxBatchSize`, `must be ≤ this server's maxBatchSize limit ${limits.maxBatchSize} (got ${k.maxBatchSize})`);
    }
  });
  return f;
}

/**
 * FleetSimulate: the fleet simulator under a router (`batchwise fleet simulate`), on a pool
 * worker like the other long jobs, so a cancelled or deadlined call stops the run and frees
 * the worker. Router segregation solves its plan first, in the same job.
 */
export function createFleetSimulateHandler(deps: ServiceDeps): UnaryHandler<unknown, unknown> {
  return async (request, ctx) => {
    const req = typeof request === 'object' && request !== null && 'weights' in request ? { ...request, weights: weightsFromProto((request as { weights: unknown }).weights) } : request;
    const call = inField('', () => parseFleetSimulateRequest(req, (raw) => parseFleetMessage(raw, deps.limits)));
    Object.assign(ctx.facts, { classes: call.fleet.classes.length, accelerators: call.fleet.accelerators, router: call.router });
    try {
      const run = await deps.pool.submit('fleetSimulate', call, { ...onPool(ctx), bounded: true });
      ctx.facts.requests = run.simulation.requests;
      return fleetRunToProto(run);
    } catch (e) {
      throw requalify('', e);
    }
  };
}
