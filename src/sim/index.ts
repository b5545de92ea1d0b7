/**
 * src/sim: simulating batching servers. One seeded discrete-event engine (engine/: N servers ×
 * C classes with a router) runs both the single server of docs/model.md §1 (simulate.ts: one server, one
 * class) and the fleet (src/fleet); around it, the serving systems' policies (policies/), the
 * arrival streams (Poisson, trace, MMPP), service laws, results with batch-means CIs, and the
 * policy comparisons (compare). This file is its public surface (re-exported from src/index.ts).
 */
export { simulate, simulateDetailed, tablePolicy, type SimulateOptions, type DetailedSimulation } from './simulate.js';
export type { SimulationResult, SimulationConfidence, ResponsePercentiles } from './result.js';
export { CONFIDENCE_LEVEL } from './result.js';
export { parseSimPolicySpec, buildSimPolicy, type SimPolicySpec } from './policySpec.js';
export type { SimPolicy, WaitingQueue } from './policies/types.js';
export { TritonPolicy, type TritonOptions } from './policies/triton.js';
export { TfServingPolicy, type TfServingOptions } from './policies/tfServing.js';
export { AimdPolicy, type AimdOptions } from './policies/aimd.js';
export { TorchServePolicy, type TorchServeOptions } from './policies/torchServe.js';
export { RayServePolicy, RAY_DEFAULT_MAX_ONGOING_REQUESTS, type RayServeOptions } from './policies/rayServe.js';
export { TablePolicy } from './policies/table.js';
export { parseTrace, formatTrace, type TraceOptions } from './trace.js';
export { poissonArrivalTimes } from './arrivals.js';
export { simulateRequest, parseSimulateRequest, runSimulateCall, type SimulateRequest, type SimulateCall, type SimulateDeps } from './request.js';
export { comparePolicies, defaultDelayGrid, type Comparison, type ComparisonRow, type CompareOptions, type DelayTrial } from './compare.js';
export { parseDuration, formatDuration } from './durations.js';
export { Rng } from './rng.js';
export { SIM_LIMITS, SIM_DEFAULTS } from './limits.js';
