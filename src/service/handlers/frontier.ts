import type { PlanningResponses } from '../../plan/request.js';
import type { UnaryHandler } from '../rpc/context.js';
import type { ServiceDeps } from './deps.js';
import { createPlanningHandler } from './planning.js';

/** Frontier: the latency–power Pareto frontier, by following the Lagrange weight's breakpoints. */
export function createFrontierHandler(deps: ServiceDeps): UnaryHandler<unknown, PlanningResponses['frontier']> {
  return createPlanningHandler('frontier', deps);
}
