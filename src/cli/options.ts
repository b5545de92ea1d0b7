import { ScenarioError } from '../model/errors.js';
import type { Backend } from '../model/scenario.js';
import type { PlanTarget } from '../plan/constrained.js';
import type { PercentileLevel, PercentileTarget } from '../plan/percentileTarget.js';
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

const PERCENTILE_FLAGS: readonly { readonly level: PercentileLevel; readonly key: 'p95Target' | 'p99Target' | 'p999Target'; readonly flag: string }[] = [
  { level: 'p95', key: 'p95Target', flag: '--p95-target' },
  { level: 'p99', key: 'p99Target', flag: '--p99-target' },
  { level: 'p999', key: 'p999Target', flag: '--p999-target' },
];

/**
 * `--p95-target`, `--p99-target` or `--p999-target`, if one is given: then it must be the only
 * target (a plan answers one question), `--latency-target` and `--power-budget` included.
 */
export function percentileTargetOf(o: {
  latencyTarget?: string;
  powerBudget?: string;
  p95Target?: string;
  p99Target?: string;
  p999Target?: string;
}): { target: PercentileTarget; flag: string } | undefined {
  const given = PERCENTILE_FLAGS.filter((f) => o[f.key] !== undefined);
  if (given.length === 0) return undefined;
  if (given.length > 1 || o.latencyTarget !== undefined || o.powerBudget !== undefined) {
    throw new ScenarioError(given[0].flag, 'give exactly one of --latency-target, --power-budget, --p95-target, --p99-target and --p999-target');
  }
  const f = given[0];
  return { target: { level: f.level, seconds: parseDuration(o[f.key]!, f.flag) }, flag: f.flag };
}

export function backendOf(o: { backend?: string }): Backend | undefined {
  return o.backend ? (o.backend.toUpperCase() as Backend) : undefined;
}
