/**
 * Public entry points of batchwise: the model, solvers, simulator and planners. The gRPC server
 * and client are in 'batchwise/service' (src/service/index.ts), so that importing the core does
 * not load gRPC, pino or prom-client; the WebGPU binding loads only when a GPU solve needs it.
 */
export * from './model/scenario.js';
export { validateScenario, loadFactor } from './model/validate.js';
export { ScenarioError, LimitError, AbortError } from './model/errors.js';
export { LIMITS } from './model/limits.js';
export { compileModel, modelBand, type CompiledModel } from './model/compile.js';
export { buildArrivalTable, arrivalsOf, type ArrivalTable } from './model/arrivalTable.js';
export { arrivalPmf, type ArrivalPmf } from './model/arrivals.js';
export * from './policy/policy.js';
export { evaluatePolicy, type Evaluation, type DetailedEvaluation, type PhaseFigures } from './policy/evaluate.js';
export { bellmanStep } from './policy/greedy.js';
export { evaluateOnModel } from './policy/modelChain.js';
export { evaluateScenarioPolicy } from './solve/evaluateScenario.js';
export * from './solve/types.js';
export * from './solve/result.js';
export { solveScenario, solveScenarioDetailed, TAIL_MASS_BOUND, type ScenarioSolveOptions, type WarmStart } from './solve/solveScenario.js';
export { resolveSolver, registerGpuProvider, BackendUnavailableError, cpuSolver } from './solve/backends.js';
export { relativeValueIteration } from './solve/cpu/rvi.js';
export { policyIteration } from './solve/cpu/pi.js';
export * from './sim/index.js';
export * from './plan/index.js';
export type * from './service/messages.js';
// Bursty arrivals: the MMPP process, trace fitting, simulation (docs/model.md §7, docs/mmpp.md).
export { makeMmpp, poissonAsMmpp, stationaryVector, type MmppProcess, type ArrivalSource as ArrivalProcessSource } from './model/mmpp/process.js';
export { burstToMmpp, type BurstProfile } from './model/mmpp/burst.js';
export type { ArrivalProcessSpec, MmppSpec, BurstSpec, TraceSpec } from './model/mmpp/spec.js';
export { MMPP_LIMITS } from './model/mmpp/limits.js';
export { countingMatrices, type ServiceLaw, type CountingResult, type CountingBlock } from './model/mmpp/counting.js';
export { solveMmppAndPoisson, poissonAtMeanRate, type MmppPolicies } from './solve/mmppPolicies.js';
export { fitTwoPhaseMmpp, type TraceFit, type TraceFitReport, type TraceFitScale } from './fit/fitTrace.js';
export { MmppArrivals, MmppTablePolicy } from './sim/mmpp.js';
export { compareMmppPolicies, type MmppCompareOptions } from './sim/mmppCompare.js';
export * as fleet from './fleet/index.js';
