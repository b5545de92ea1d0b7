import type { PlanningResponses } from '../../plan/request.js';
import type { UnaryHandler } from '../rpc/context.js';
import type { ServiceDeps } from './deps.js';
import { createPlanningHandler } from './planning.js';

/** Export: the optimal policy as a serving system's batching settings, delay tuned in simulation. */
export function createExportHandler(deps: ServiceDeps): UnaryHandler<unknown, PlanningResponses['export']> {
  return createPlanningHandler('export', deps);
}
