import { ScenarioError } from '../model/errors.js';
import type { Backend } from '../model/scenario.js';
import type { PlanTarget } from '../plan/constrained.js';
import { parseDuration, parsePower } from '../plan/units.js';

/**
 * Option values read by several commands' implementations (commands/*.run.ts). Kept apart from
 * the registration modules so that an implementation never imports one (no import circle), and
 * light: only the units parsers.
 */

/** `--latency-target 10ms` or `--power-budget 120W`, exactly one. */
export function planTarget(o: { latencyTarget?: string; powerBudget?: string }): PlanTarget {
  if ((o.latencyTarget === undefined) === (o.powerBudget === undefined)) {
    throw new ScenarioError('--latency-target', 'give exactly one of --latency-target (e.g. 10ms) and --power-budget (e.g. 120W)');
  }
  return o.latencyTarget !== undefined
    ? { kind: 'latency', seconds: parseDuration(o.latencyTarget, '--latency-target') }
    : { kind: 'power', watts: parsePower(o.powerBudget!, '--power-budget') };
}

export function backendOf(o: { backend?: string }): Backend | undefined {
  return o.backend ? (o.backend.toUpperCase() as Backend) : undefined;
}
