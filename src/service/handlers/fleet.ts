import type { PlanningResponses } from '../../plan/request.js';
import type { UnaryHandler } from '../rpc/context.js';
import type { ServiceDeps } from './deps.js';
import { createPlanningHandler } from './planning.js';

/** Fleet: the least number of accelerators meeting a mean (and simulated p99) latency target. */
export function createFleetHandler(deps: ServiceDeps): UnaryHandler<unknown, PlanningResponses['fleet']> {
  return createPlanningHandler('fleet', deps);
}
