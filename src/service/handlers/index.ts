import type { ServerStreamingHandler, UnaryHandler } from '../rpc/context.js';
import type { ServiceDeps } from './deps.js';
import { createEvaluateHandler } from './evaluate.js';
import { createSimulateHandler } from './simulate.js';
import { createSolveHandler } from './solve.js';
import { createSolveBatchHandler } from './solveBatch.js';
import { createPlanHandler } from './plan.js';
import { createFrontierHandler } from './frontier.js';
import { createFleetHandler } from './fleet.js';
import { createExportHandler } from './export.js';
import { createFleetPlanHandler } from './fleetPlan.js';
import { createFleetSimulateHandler } from './fleetSimulate.js';

/** How one RPC is served: its call shape and a factory that builds its handler from the service's parts. */
export type RpcDefinition =
  | { readonly kind: 'unary'; create(deps: ServiceDeps): UnaryHandler<never, unknown> }
  | { readonly kind: 'serverStreaming'; create(deps: ServiceDeps): ServerStreamingHandler<never, unknown> };

/**
 * The registration table: one line per RPC of `service BatchingPolicy`, each handler in a
 * module of its own. To add an RPC: declare it in the proto, write `handlers/<name>.ts`
 * exporting a `create…Handler(deps)`, and add its line here. The server refuses to start
 * if a line names a method the proto does not have; a proto method without a line
 * answers UNIMPLEMENTED.
 */
export const RPCS: Readonly<Record<string, RpcDefinition>> = {
  Solve: { kind: 'serverStreaming', create: createSolveHandler },
  SolveBatch: { kind: 'serverStreaming', create: createSolveBatchHandler },
  Evaluate: { kind: 'unary', create: createEvaluateHandler },
  Simulate: { kind: 'unary', create: createSimulateHandler },
  Plan: { kind: 'unary', create: createPlanHandler },
  Frontier: { kind: 'unary', create: createFrontierHandler },
  Fleet: { kind: 'unary', create: createFleetHandler },
  Export: { kind: 'unary', create: createExportHandler },
  FleetSimulate: { kind: 'unary', create: createFleetSimulateHandler },
  FleetPlan: { kind: 'unary', create: createFleetPlanHandler },
};
