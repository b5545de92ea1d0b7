import { ScenarioError } from '../model/errors.js';
import type { ValidatedScenario } from '../model/scenario.js';
import type { PercentileLevel, PercentileMemberResult, PercentileObjective, PercentilePlanResult, UndecidedMember } from './percentileTarget.js';

/**
 * The Plan RPC's percentile targets (`p95Target`, `p99Target`, `p999Target`, `objective`):
 * parsing them out of a request and putting planPercentileTarget's answer into PlanResult's
 * shape (target, status = met, percentile). Kept apart from request.ts so that the mean-target
 * path never loads the response-time law (runPercentileCall imports it when it runs).
 */
export interface PercentileTargetCall {
  readonly kind: 'percentile';
  readonly level: PercentileLevel;
  readonly seconds: number;
  readonly objective: PercentileObjective;
}

/** Request field of each level (proto3 JSON names; also the field errors name). */
export const PERCENTILE_FIELD: Readonly<Record<PercentileLevel, string>> = { p95: 'p95Target', p99: 'p99Target', p999: 'p999Target' };
const PERCENTILE_FIELDS = Object.entries(PERCENTILE_FIELD) as Array<[PercentileLevel, string]>;

export interface PercentilePlanMessage {
  readonly target: { readonly kind: PercentileLevel; readonly seconds: number; readonly probability: number };
  readonly status: 'met';
  readonly percentile: {
    readonly objective: PercentileObjective;
    readonly policy: PercentileMemberResult;
    readonly family: PercentilePlanResult['family'];
    readonly examined: number;
    readonly ruledOut: number;
    readonly undecided: readonly UndecidedMember[];
  };
}

const ALL_TARGETS = 'give exactly one of latencyTarget (seconds), powerBudget (watts), p95Target, p99Target and p999Target (seconds)';

/**
 * The percentile target of a Plan request, if it has one. A percentile field that is present
 * must be a positive finite number: a oneof member has presence on the wire, so an explicit 0
 * is a bad value here rather than "not given" (as it reads for latencyTarget and powerBudget).
 */
export function parsePercentileTarget(req: Record<string, unknown>, meanGiven: boolean): PercentileTargetCall | undefined {
  const given = PERCENTILE_FIELDS.filter(([, f]) => req[f] !== undefined && req[f] !== null);
  const objective = parseObjective(req.objective);
  if (given.length === 0) {
    if (objective !== undefined) throw new ScenarioError('objective', 'applies to percentile targets (p95Target, p99Target, p999Target) only');
    return undefined;
  }
  const [level, field] = given[0];
  if (given.length > 1 || meanGiven) throw new ScenarioError(field, ALL_TARGETS);
  const v = req[field];
  if (typeof v !== 'number' || !Number.isFinite(v) || !(v > 0)) throw new ScenarioError(field, `must be a positive duration in seconds (got ${String(v)})`);
  return { kind: 'percentile', level, seconds: v, objective: objective ?? 'power' };
}

/** Exactly one mean target, or the error naming every kind of target. */
export function missingTarget(): ScenarioError {
  return new ScenarioError('latencyTarget', ALL_TARGETS);
}

function parseObjective(v: unknown): PercentileObjective | undefined {
  // proto3 sends no default-valued string, so '' is "not given" like absent.
  if (v === undefined || v === null || v === '') return undefined;
  if (v === 'power' || v === 'cost') return v;
  throw new ScenarioError('objective', `must be power or cost (got ${JSON.stringify(v)})`);
}

export function percentilePlanMessage(r: PercentilePlanResult): PercentilePlanMessage {
  return {
    target: { kind: r.target.level, seconds: r.target.seconds, probability: r.target.probability },
    status: 'met',
    percentile: { objective: r.objective, policy: r.policy, family: r.family, examined: r.examined, ruledOut: r.ruledOut, undecided: r.undecided },
  };
}

/** Runs the call (on a pool worker for the RPC); an unmet target is a PercentileInfeasibleError on its field. */
export async function runPercentileCall(scenario: ValidatedScenario, t: PercentileTargetCall, signal?: AbortSignal): Promise<PercentilePlanMessage> {
  // Loaded here only: the planner pulls in the response-time law.
  const { planPercentileTarget } = await import('./percentileTarget.js');
  const r = await planPercentileTarget(scenario, { level: t.level, seconds: t.seconds }, { objective: t.objective, signal, targetField: PERCENTILE_FIELD[t.level] });
  return percentilePlanMessage(r);
}
