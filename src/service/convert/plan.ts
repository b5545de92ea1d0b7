import type { PlanResult, PlanTarget } from '../../plan/constrained.js';
import type { PercentileMemberResult, PercentilePlanResult } from '../../plan/percentileTarget.js';
import type { PercentilePlanMessage } from '../../plan/percentileRequest.js';
import { policyFromProtoSummary, stripUnset } from './result.js';

/** What the Plan RPC answers, in the library's own types: a mean plan, or a percentile plan as planPercentileTarget returns it. */
export type PlanAnswer = { readonly kind: 'mean'; readonly result: PlanResult } | { readonly kind: 'percentile'; readonly result: PercentilePlanResult };

/**
 * A decoded PlanResult (client side, defaults on) → the library's answer. A percentile target's
 * answer travels in PlanResult.percentile beside target and status; it is put back into
 * PercentilePlanResult's shape so a remote plan prints and compares like an in-process one.
 */
export function planAnswerFromProto(m: unknown): PlanAnswer {
  const r = stripUnset(m) as Partial<PercentilePlanMessage> & Record<string, unknown>;
  const p = r.percentile;
  if (p === undefined || r.target === undefined) {
    const plan = r as unknown as PlanResult;
    const t = plan.target as PlanTarget & { seconds?: number; watts?: number };
    // PlanTarget's other fields read as 0 with defaults on; the library's target holds its own kind's only.
    const target: PlanTarget = t.kind === 'latency' ? { kind: 'latency', seconds: t.seconds ?? 0 } : { kind: 'power', watts: t.watts ?? 0 };
    return { kind: 'mean', result: { ...plan, target, deterministic: { ...plan.deterministic, policy: policyFromProtoSummary(plan.deterministic?.policy) } } };
  }
  const policy: PercentileMemberResult = { ...p.policy, policy: policyFromProtoSummary(p.policy.policy) };
  return {
    kind: 'percentile',
    result: {
      target: { level: r.target.kind, seconds: r.target.seconds, probability: r.target.probability },
      objective: p.objective,
      policy,
      family: p.family,
      examined: p.examined,
      ruledOut: p.ruledOut,
      undecided: p.undecided ?? [],
    },
  };
}
