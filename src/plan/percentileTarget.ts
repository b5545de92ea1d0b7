import { buildArrivalTable, type ArrivalTable } from '../model/arrivalTable.js';
import { LimitError, ScenarioError, throwIfAborted } from '../model/errors.js';
import type { Backend, ModelParams } from '../model/scenario.js';
import type { CompiledModel } from '../model/compile.js';
import { responseCdfCeiling } from '../latency/floor.js';
import { lawCostReason, latencyModel } from '../latency/summary.js';
import { percentileAgainst, type TargetPercentile } from '../latency/targetPercentile.js';
import { evaluatePolicy, type DetailedEvaluation } from '../policy/evaluate.js';
import { planned, type PlannedPolicy } from './figures.js';
import { asValidated } from './frontier.js';
import { checkPercentileLaw, percentileFamily, type FamilyMember } from './percentileFamily.js';
import { formatDuration, formatPower } from './units.js';

/**
 * Plans against a response-time percentile target (docs/model.md §9.3): the least-power (or
 * least-cost) policy of a stated family (percentileFamily.ts) whose exact percentile, from
 * the response-time law, is within the target. The answer is optimal within that family only.
 * Poisson arrivals with any service law, MMPP arrivals with exponential service.
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
  /**
   * Its relative uncertainty in t (bracket and CDF error bound) at the settings it was computed at:
   * the results' (RESULT_LAW_OPTIONS), or the tight defaults where the target lay within twice
   * the results' accuracy of it (latency/targetPercentile.ts).
   */
  readonly percentileRelative: number;
  /** How the law was computed (`mixture`, …). */
  readonly method: string;
}

export interface PercentilePlanResult {
  readonly target: PercentileTarget & { readonly probability: number };
  readonly objective: PercentileObjective;
  /** The least-objective member of the family meeting the target. */
  readonly policy: PercentileMemberResult;
  readonly family: {
    readonly name: string;
    readonly size: number;
    readonly frontierVertices: number;
    readonly controlLimits: number;
    /** Per-phase control limits (MMPP arrivals; 0 for Poisson). */
    readonly perPhaseLimits: number;
  };
  /** Members whose law was computed: those of lower objective (all missed) and the answer. */
  readonly examined: number;
  /** Members of lower objective ruled out without their law (their CDF ceiling at the target is below p). */
  readonly ruledOut: number;
  /**
   * Members of lower objective than the answer whose law was out of reach (a bound of the law's
   * method, e.g. a near-saturated member's chain): passed over, so the answer is optimal among the
   * members that were decided. Empty on most plans.
   */
  readonly undecided: readonly UndecidedMember[];
}

/** A member the search could not decide: its law is out of reach, for `reason`. */
export interface UndecidedMember {
  readonly name: string;
  readonly origin: FamilyMember['origin'];
  readonly meanPower: number;
  readonly averageCost: number;
  readonly meanResponseTime: number;
  readonly reason: string;
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
    readonly undecided: readonly UndecidedMember[] = [],
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
  checkPercentileLaw(p);
  if (!(target.seconds > 0) || !Number.isFinite(target.seconds)) throw new ScenarioError(field, `must be a positive duration (got ${target.seconds})`);

  const family = await percentileFamily(sc, target.seconds, opts);
  const ctx: SearchContext = { p, model: latencyModel(p), table: buildArrivalTable(p, opts.signal), target: target.seconds, probability, objective, field, opts };
  // (a) ∪ (b) first; under MMPP the per-phase limits (c) around its best member, searched the same
  // way but only below the answer so far (a member not below it cannot replace it).
  const first = searchFamily(ctx, family.members);
  const pivot = first.met ?? first.least;
  // With no member of (a) ∪ (b) decided there is no cap to build (c) around.
  const extra = pivot ? family.variants(pivot, first.met !== undefined) : { members: [], name: '' };
  const none: SearchOutcome = { examined: 0, ruledOut: 0, undecided: [] };
  const second = extra.members.length > 0 ? searchFamily(ctx, extra.members, first.met) : none;
  const name = family.name + extra.name;
  const size = family.members.length + extra.members.length;
  const examined = first.examined + second.examined;
  const ruledOut = first.ruledOut + second.ruledOut;
  const undecided = [...first.undecided, ...second.undecided];
  const met = second.met ?? first.met;
  if (met) {
    return {
      target: { ...target, probability },
      objective,
      policy: met,
      family: { name, size, frontierVertices: family.frontierVertices, controlLimits: family.controlLimits, perPhaseLimits: extra.members.length },
      examined,
      ruledOut,
      undecided,
    };
  }
  const best = second.least && (!first.least || second.least.percentile < first.least.percentile) ? second.least : first.least;
  if (!best) {
    // Every member's law was out of reach (the family always holds a stable member, the frontier's least-latency vertex).
    throw new LimitError(field, `no member of the family (${name}; ${size} policies) has a response-time law within reach, so none can be checked against ${formatDuration(target.seconds)}; the first: ${undecided[0]?.name}: ${undecided[0]?.reason}`);
  }
  const skipped = undecided.length > 0 ? `; ${undecided.length} members whose law was out of reach are not in that figure (the first: ${undecided[0].name}: ${undecided[0].reason})` : '';
  throw new PercentileInfeasibleError(
    field,
    `${formatDuration(target.seconds)} cannot be met within the family (${name}; ${size} policies): ` +
      `the least achievable ${target.level} is ${formatDuration(best.percentile)} (${best.name}, mean power ${formatPower(best.meanPower)})${skipped}`,
    best,
    name,
    undecided,
  );
}

interface SearchContext {
  readonly p: ModelParams;
  readonly model: CompiledModel;
  readonly table: ArrivalTable;
  readonly target: number;
  readonly probability: number;
  readonly objective: PercentileObjective;
  readonly field: string;
  readonly opts: PercentilePlanOptions;
}

interface SearchOutcome {
  /** The least-objective member meeting the target. */
  readonly met?: PercentileMemberResult;
  /** When none does (and no bound was given): the member with the least percentile. */
  readonly least?: PercentileMemberResult;
  readonly examined: number;
  readonly ruledOut: number;
  /** Members whose law was out of reach, in the order met. */
  readonly undecided: UndecidedMember[];
}

/**
 * The search, written once for every family: members evaluated exactly (ms each; the law is what
 * costs, tens to hundreds of ms) and taken in increasing objective, ties to the lower mean
 * latency; with `below`, only members ahead of it in that order. The first whose percentile
 * meets the target is the least-objective member that does; the laws of the rest are never
 * computed. A member whose CDF ceiling (latency/floor.ts, from its evaluation alone) is below p
 * at the target misses it for sure and is passed over without its law. A member whose law is out
 * of reach (a LimitError of the law's method) is passed over and listed as undecided.
 */
function searchFamily(ctx: SearchContext, members: readonly FamilyMember[], below?: PercentileMemberResult): SearchOutcome {
  const { p, opts, probability, target } = ctx;
  const keyOf = (x: { meanPower: number; averageCost: number }): number => (ctx.objective === 'power' ? x.meanPower : x.averageCost);
  opts.onProgress?.(`evaluating ${members.length} policies`);
  const rows = members
    .map((m) => {
      throwIfAborted(opts.signal);
      const ev = evaluatePolicy(p, m.policy, { table: ctx.table, signal: opts.signal });
      return { m, ev, key: keyOf(ev) };
    })
    .filter((r) => below === undefined || r.key < keyOf(below) || (r.key === keyOf(below) && r.ev.meanResponseTime < below.meanResponseTime));
  rows.sort((x, y) => x.key - y.key || x.ev.meanResponseTime - y.ev.meanResponseTime);

  let least: PercentileMemberResult | undefined;
  let examined = 0;
  let ruledOut = 0;
  const undecided: UndecidedMember[] = [];
  const passed: { m: FamilyMember; ev: DetailedEvaluation; ceiling: (t: number) => number }[] = [];
  const misses = (ceiling: ((t: number) => number) | undefined, t: number): boolean => ceiling !== undefined && ceiling(t) < probability - CEILING_MARGIN;
  for (const { m, ev } of rows) {
    throwIfAborted(opts.signal);
    const ceiling = responseCdfCeiling(p, m.policy, ev);
    if (ceiling && misses(ceiling, target)) {
      ruledOut++;
      passed.push({ m, ev, ceiling });
      continue;
    }
    opts.onProgress?.(`response-time law ${examined + undecided.length + 1} (${examined + undecided.length + ruledOut + 1} of at most ${rows.length} policies)`);
    const r = percentileOf(ctx, m, ev, undecided);
    if (r === undefined) continue;
    examined++;
    if (r.percentile <= target) return { met: r, examined, ruledOut, undecided };
    if (!least || r.percentile < least.percentile) least = r;
  }
  if (below) return { examined, ruledOut, undecided };
  // Infeasible: the least percentile over the family. A member passed over at the target can
  // still beat the best so far only if its ceiling reaches p there.
  passed.forEach(({ m, ev, ceiling }, i) => {
    throwIfAborted(opts.signal);
    if (least && misses(ceiling, least.percentile)) return;
    opts.onProgress?.(`least achievable: response-time law of ruled-out member ${i + 1} of ${passed.length}`);
    const r = percentileOf(ctx, m, ev, undecided);
    if (r && (!least || r.percentile < least.percentile)) least = r;
  });
  return { least, examined, ruledOut, undecided };
}

/** The member's percentile against the target, or undefined (and the member listed in `undecided`) where its law is out of reach. */
function percentileOf(ctx: SearchContext, m: FamilyMember, ev: DetailedEvaluation, undecided: UndecidedMember[]): PercentileMemberResult | undefined {
  const skip = (reason: string): undefined => {
    undecided.push({ name: m.name, origin: m.origin, meanPower: ev.meanPower, averageCost: ev.averageCost, meanResponseTime: ev.meanResponseTime, reason });
    return undefined;
  };
  const slow = lawCostReason(ctx.model, m.policy, ev);
  if (slow !== undefined) return skip(slow);
  let q: TargetPercentile;
  try {
    q = percentileAgainst(ctx.model, m.policy, ev, ctx.probability, ctx.target);
  } catch (e) {
    if (e instanceof LimitError) return skip(e.reason);
    throw e;
  }
  return {
    ...planned(ctx.p, m.policy, ev),
    origin: m.origin,
    name: m.name,
    controlLimit: m.controlLimit,
    batchCap: m.batchCap,
    averageCost: ev.averageCost,
    percentile: q.t,
    percentileRelative: q.relative,
    method: q.method,
  };
}
