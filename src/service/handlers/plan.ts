import type { PlanningResponses } from '../../plan/request.js';
import type { UnaryHandler } from '../rpc/context.js';
import type { ServiceDeps } from './deps.js';
import { createPlanningHandler } from './planning.js';

/** Plan: SLO-constrained solve: least power under a latency target, or least latency under a power budget. */
export function createPlanHandler(deps: ServiceDeps): UnaryHandler<unknown, PlanningResponses['plan']> {
  return createPlanningHandler('plan', deps);
}
