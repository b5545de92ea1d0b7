/** Capacity planning's public surface (re-exported from src/index.ts; docs/planning.md). */
export { planScenario, type PlanResult, type PlanTarget, type PlanOptions } from './constrained.js';
export { planPercentileTarget, PercentileInfeasibleError, PERCENTILE_LEVEL_PROBABILITY, type PercentilePlanResult, type PercentileTarget, type PercentileLevel, type PercentileObjective, type PercentileMemberResult, type PercentilePlanOptions } from './percentileTarget.js';
export { percentileFamily, cappedControlLimits, type FamilyMember, type PercentileFamily } from './percentileFamily.js';
export { computeFrontier, lowerHull, DEFAULT_FRONTIER_RESOLUTION, DEFAULT_MAX_LATENCY_FACTOR, type Frontier, type FrontierVertex, type FrontierOptions } from './frontier.js';
export { sizeFleet, DEFAULT_MAX_ACCELERATORS, type FleetOptions, type FleetResult, type FleetPoint, type FleetTail } from './fleet.js';
export { exportPolicy, type ExportOptions, type ExportResult, type SimulatedCost } from './export/exportPolicy.js';
export { EXPORT_TARGETS, TARGETS as EXPORT_TARGET_SPECS, type ExportTarget, type BatchingSetting } from './export/targets.js';
export { renderSetting, assumptions as exportAssumptions } from './export/render.js';
export { evaluateConfig, type ConfigEvaluation, type ConfigEvaluationOptions } from './export/evaluateConfig.js';
export { readConfig, type ConfigSetting } from './export/readConfig.js';
export type { DelayTrial as ExportDelayTrial } from './export/tune.js';
export { powerBound, type PowerBound } from './powerBound.js';
export { buildMix, reduceToSingleState, commonRecurrentState, cycleTime, type Mix } from './mix.js';
export { evaluateMix, type MixEvaluation } from './mixChain.js';
export { WeightSolver, lagrangian, type WeightedPolicy } from './weights.js';
export { DEFAULT_RESOLUTION } from './search.js';
export type { Figures, PlannedPolicy } from './figures.js';
export { parsePower, parseRate, parseDuration as parsePlanDuration } from './units.js';
export { renderFrontierSvg, type FrontierChartPoint, type FrontierChartOptions } from './svg/frontierChart.js';
export { renderPolicySvg, type PolicyChartInput, type PolicyChartOptions } from './svg/policyChart.js';
export {
  planningRequest,
  parsePlanningRequest,
  runPlanningCall,
  type PlanningKind,
  type PlanningCall,
  type PlanningResponse,
  type FrontierMessage,
} from './request.js';
