import { ScenarioError } from '../../model/errors.js';
import type { ValidatedScenario } from '../../model/scenario.js';
import { validateScenario } from '../../model/validate.js';
import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import { validateClassesScenario } from '../../model/classes/validate.js';
import { checkClassesLimits, checkScenarioLimits, type ServiceLimits } from '../config.js';
import { classesFromProto, isClassesMessage } from './classes.js';
import { scenarioFromProto } from './scenario.js';

/** Decoded proto Scenario → validated scenario within the service's limits; field paths relative to the scenario. */
export function parseScenario(raw: unknown, limits: ServiceLimits): ValidatedScenario {
  if (raw === undefined || raw === null) throw new ScenarioError('scenario', 'is required');
  // Solve and SolveBatch take the multi-class form before this (handlers/solveClasses.ts, batch/prepare.ts); every other use is single-class.
  if (isClassesMessage(raw)) throw new ScenarioError('classes', 'multi-class scenarios are taken by Solve and SolveBatch only for now (Evaluate, Simulate and the planning RPCs are single-class)');
  const scenario = validateScenario(scenarioFromProto(raw));
  checkScenarioLimits(scenario, limits);
  return scenario;
}

/** Decoded proto Scenario with classes → validated multi-class scenario within the service's limits (paths relative to the scenario). */
export function parseClassesScenario(raw: Record<string, unknown>, limits: ServiceLimits): ValidatedClassesScenario {
  const scenario = validateClassesScenario(classesFromProto(raw));
  checkClassesLimits(scenario, limits);
  return scenario;
}

/** Whether validating the scenario fits an arrival trace (heavy: the service does it on a pool worker). */
export function carriesTrace(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const ap = (raw as { arrivalProcess?: unknown }).arrivalProcess;
  return typeof ap === 'object' && ap !== null && (ap as { trace?: unknown }).trace != null;
}
