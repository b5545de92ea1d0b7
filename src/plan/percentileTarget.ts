import { buildArrivalTable } from '../model/arrivalTable.js';
import { LimitError, ScenarioError, throwIfAborted } from '../model/errors.js';
import type { Backend } from '../model/scenario.js';
import { responseTimeLaw } from '../latency/distribution.js';
import { quantile } from '../latency/percentiles.js';
import { responseCdfCeiling } from '../latency/floor.js';
import { lawCostReason, latencyModel } from '../latency/summary.js';
import { evaluatePolicy, type DetailedEvaluation } from '../policy/evaluate.js';
import { planned, type PlannedPolicy } from './figures.js';
import { asValidated } from './frontier.js';
import { percentileFamily, type FamilyMember } from './percentileFamily.js';
import { formatDuration, formatPower } from './units.js';

/**
 * Plans against a response-time percentile target (docs/model.md §9): the least-power (or
 * least-cost) policy of a stated family (percentileFamily.ts) whose exact percentile, from
 * the response-time law, is within the target. The answer is optimal within that family only.
 */
export type PercentileLevel = 'p95' | 'p99' | 'p999';

export const PERCENTILE_LEVEL_PROBABILITY: Readonly<Record<PercentileLevel, number>> = { p95: 0.95, p99: 0.99, p999: 0.999 };

export interface PercentileTarget {
  readonly level: PercentileLevel;
  /** The percentile's bound, seconds. */
  readonly seconds: number;
}

/** `power`: least mean power; `cost`: least w_lat·E[R] + w_pow·E[P] with the scenario's objective weights. */
export type PercentileObjective = 'power' | 'cost';

export interface PercentileMemberResult extends PlannedPolicy {
  readonly origin: FamilyMember['origin'];
  readonly name: string;
  readonly controlLimit: number;
  readonly batchCap: number;
  /** w_lat·E[R] + w_pow·E[P] with the scenario's weights. */
  readonly averageCost: number;
  /** The exact percentile at the target's level, seconds. */
  readonly percentile: number;
  /** Its relative uncertainty in t (bracket and CDF error bound). */
  readonly percentileRelative: number;
  /** How the law was computed (`mixture`, …). */
  readonly method: string;
}

export interface PercentilePlanResult {
  readonly target: PercentileTarget & { readonly probability: number };
  readonly objective: PercentileObjective;
  /** The least-objective member of the family meeting the target. */
  readonly policy: PercentileMemberResult;
  readonly family: { readonly name: string; readonly size: number; readonly frontierVertices: number; readonly controlLimits: number };
  /** Members whose law was computed: those of lower objective (all missed) and the answer. */
  readonly examined: number;
  /** Members of lower objective ruled out without their law (their CDF ceiling at the target is below p). */
  readonly ruledOut: number;
}

export interface PercentilePlanOptions {
  readonly objective?: PercentileObjective;
  readonly signal?: AbortSignal;
  readonly backend?: Backend;
  /** Field name used in errors about the target (the CLI flag). */
  readonly targetField?: string;
  readonly onProgress?: (step: string) => void;
}

/** The target cannot be met within the family: `least` is the member with the least percentile. */
export class PercentileInfeasibleError extends ScenarioError {
  constructor(
    field: string,
    reason: string,
    readonly least: PercentileMemberResult,
    readonly familyName: string,
  ) {
    super(field, reason);
  }
}

/** Slack for the ceiling's test: the extension's top mass (< 1e-13) is not in it. */
const CEILING_MARGIN = 1e-9;

export async function planPercentileTarget(input: unknown, target: PercentileTarget, opts: PercentilePlanOptions = {}): Promise<PercentilePlanResult> {
  const sc = asValidated(input);
  const p = sc.params;
  const field = opts.targetField ?? `${target.level}Target`;
  const objective = opts.objective ?? 'power';
  const probability = PERCENTILE_LEVEL_PROBABILITY[target.level];
  if (p.arrivalProcess) throw new LimitError(field, 'percentile targets need the exact response-time law, implemented for Poisson arrivals only (MMPP: not yet)');
  if (!(target.seconds > 0) || !Number.isFinite(target.seconds)) throw new ScenarioError(field, `must be a positive duration (got ${target.seconds})`);

  const family = await percentileFamily(sc, target.seconds, opts);
  const table = buildArrivalTable(p, opts.signal);
  const model = latencyModel(p);
  // Exact evaluations are cheap (ms); the law is what costs (tens to hundreds of ms each).
  opts.onProgress?.(`evaluating ${family.members.length} policies`);
  const rows = family.members.map((m) => {
    throwIfAborted(opts.signal);
    const ev = evaluatePolicy(p, m.policy, { table, signal: opts.signal });
    return { m, ev, key: objective === 'power' ? ev.meanPower : ev.averageCost };
  });
  // Ties in the objective go to the lower mean latency first.
  rows.sort((x, y) => x.key - y.key || x.ev.meanResponseTime - y.ev.meanResponseTime);

  const percentileOf = (m: FamilyMember, ev: DetailedEvaluation): PercentileMemberResult => {
    const slow = lawCostReason(model, m.policy, ev);
    if (slow !== undefined) throw new LimitError(field, `the exact law of ${m.name} is out of reach: ${slow}`);
    const law = responseTimeLaw(model, m.policy, ev);
    const q = quantile(law, probability, 0);
    return {
      ...planned(p, m.policy, ev),
      origin: m.origin,
      name: m.name,
      controlLimit: m.controlLimit,
      batchCap: m.batchCap,
      averageCost: ev.averageCost,
      percentile: q.t,
      percentileRelative: q.relative,
      method: law.method,
    };
  };

  // Pruning: members go in increasing objective order, so the first whose percentile meets the
  // target is the least-objective member that does; the laws of the rest are never computed. A
  // member whose CDF ceiling (latency/floor.ts, from its evaluation alone) is below p at the
  // target misses it for sure and is passed over without its law (the costly part).
  let least: PercentileMemberResult | undefined;
  let examined = 0;
  let ruledOut = 0;
  const passed: { m: FamilyMember; ev: DetailedEvaluation; ceiling: (t: number) => number }[] = [];
  const misses = (ceiling: ((t: number) => number) | undefined, t: number): boolean => ceiling !== undefined && ceiling(t) < probability - CEILING_MARGIN;
  for (const { m, ev } of rows) {
    throwIfAborted(opts.signal);
    const ceiling = responseCdfCeiling(p, m.policy, ev);
    if (ceiling && misses(ceiling, target.seconds)) {
      ruledOut++;
      passed.push({ m, ev, ceiling });
      continue;
    }
    opts.onProgress?.(`response-time law ${examined + 1} (${examined + ruledOut + 1} of at most ${rows.length} policies)`);
    const r = percentileOf(m, ev);
    examined++;
    if (r.percentile <= target.seconds) {
      return {
        target: { ...target, probability },
        objective,
        policy: r,
        family: { name: family.name, size: family.members.length, frontierVertices: family.frontierVertices, controlLimits: family.controlLimits },
        examined,
        ruledOut,
      };
    }
    if (!least || r.percentile < least.percentile) least = r;
  }
  // Infeasible: the least percentile over the family. A member passed over at the target can
  // still beat the best so far only if its ceiling reaches p there.
  for (const { m, ev, ceiling } of passed) {
    throwIfAborted(opts.signal);
    if (least && misses(ceiling, least.percentile)) continue;
    const r = percentileOf(m, ev);
    if (!least || r.percentile < least.percentile) least = r;
  }
  // The family always holds a stable member (the frontier's least-latency vertex).
  const best = least!;
  throw new PercentileInfeasibleError(
    field,
    `${formatDuration(target.seconds)} cannot be met within the family (${family.name}; ${family.members.length} policies): ` +
      `the least achievable ${target.level} is ${formatDuration(best.percentile)} (${best.name}, mean power ${formatPower(best.meanPower)})`,
    best,
    family.name,
  );
}
