/**
 * src/fleet: fleets of accelerators serving several request classes. The fleet scenario and its
 * validation, routers, simulation (through src/sim's one engine), exact segregation planning and
 * sizing, the FleetSimulate/FleetPlan RPCs; learn/ holds the learned baselines trained in that
 * simulator. This file is its public surface.
 */
export { validateFleet, acceleratorKinds, pairScenario, FLEET_LIMITS, type FleetScenario, type FleetParams, type FleetClass, type AcceleratorKind, type BatchingMode } from './scenario.js';
export { simulateFleet, buildFleetPolicies, type FleetSimulateOptions } from './simulate.js';
export type { FleetSimulation, ClassMetrics, AcceleratorMetrics } from './result.js';
export { RoundRobin, RandomRouter, ShortestQueue, PowerOfTwo, LeastExpectedWork, Segregation, parseRouterName, simpleRouter, ROUTER_NAMES, type Router, type RouterName, type FleetView } from './routers.js';
export { planSegregation, segregationSetup, solveGroup, splits, type SegregationPlan, type GroupSolve } from './segregation.js';
export { parseFleetSimulateRequest, parseFleetPlanRequest, runFleetSimulateCall, runFleetPlanCall, type FleetSimulateCall, type FleetPlanCall, type FleetPlanAnswer } from './request.js';
export { leastAccelerators, type FleetSizing } from './sizing.js';
export { runFleet, type FleetRun, type FleetRunOptions } from './run.js';
export { LinearRouter, type RouterWeights } from './learn/linearRouter.js';
export { trainRouter, type TrainOptions, type TrainResult, type CurvePoint, type Algo } from './learn/trainRouter.js';
export { trainBatching, type BatchingTrainOptions, type BatchingTrainResult } from './learn/trainBatching.js';
export { renderCurveSvg } from './learn/curve.js';
