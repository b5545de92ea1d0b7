/**
 * Least accelerators for the class targets: grow one accelerator group (the others fixed)
 * until some segregation meets every class's mean latency target, by exact solves.
 * Segregation cost only falls as a group grows by one (the old split stays available and
 * the added accelerator can always join a class), but target feasibility is what is
 * searched, so the scan is linear from the least count that gives each class one accelerator.
 */
import { ScenarioError } from '../model/errors.js';
import { FLEET_LIMITS, type FleetParams } from './scenario.js';
import { planSegregation, type SegregationPlan } from './segregation.js';

export interface FleetSizing {
  /** The kind that was sized, and its least count. */
  readonly kind: string;
  readonly count: number;
  readonly plan: SegregationPlan;
  /** Counts tried that could not meet the targets. */
  readonly rejected: readonly number[];
}

export async function leastAccelerators(f: FleetParams, kind: number, max = 64, signal?: AbortSignal): Promise<FleetSizing | null> {
  if (!(kind >= 0 && kind < f.kinds.length)) throw new ScenarioError('kind', `must name one of the ${f.kinds.length} accelerator groups`);
  if (!f.classes.some((c) => c.latencyTarget !== null)) throw new ScenarioError('classes', 'no class has a latencyTarget: there is nothing to size for');
  const others = f.accelerators - f.kinds[kind].count;
  const rejected: number[] = [];
  const from = Math.max(1, f.classes.length - others);
  const to = Math.min(max, FLEET_LIMITS.maxAccelerators - others);
  for (let n = from; n <= to; n++) {
    const kinds = f.kinds.map((k, i) => (i === kind ? { ...k, count: n } : k));
    const g: FleetParams = { ...f, kinds, accelerators: others + n };
    const plan = await planSegregation(g, { signal, requireTargets: true });
    if (plan !== null) return { kind: f.kinds[kind].name, count: n, plan, rejected };
    rejected.push(n);
  }
  return null;
}
