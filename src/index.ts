/** Public entry points of batchwise. */
export * from './model/scenario.js';
export { validateScenario, loadFactor } from './model/validate.js';
export { ScenarioError, LimitError, AbortError } from './model/errors.js';
export { LIMITS } from './model/limits.js';
export { compileModel, buildPmfTable, type CompiledModel, type PmfTable } from './model/compile.js';
export { arrivalPmf, type ArrivalPmf } from './model/arrivals.js';
export * from './policy/policy.js';
export { evaluatePolicy, type Evaluation, type DetailedEvaluation } from './policy/evaluate.js';
export { evaluateScenarioPolicy } from './solve/evaluateScenario.js';
export * from './solve/types.js';
export * from './solve/result.js';
export { solveScenario, solveScenarioDetailed, TAIL_MASS_BOUND, type ScenarioSolveOptions, type WarmStart } from './solve/solveScenario.js';
export { resolveSolver, registerGpuProvider, BackendUnavailableError, cpuSolver, type GpuProvider } from './solve/backends.js';
export { relativeValueIteration } from './solve/cpu/rvi.js';
export { policyIteration } from './solve/cpu/pi.js';
export * from './sim/index.js';
export * from './service/index.js';
