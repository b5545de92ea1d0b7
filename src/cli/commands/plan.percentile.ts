import type { PercentileMemberResult, PercentilePlanResult } from '../../plan/percentileTarget.js';
import { formatDuration, formatPower } from '../../plan/units.js';
import { policyDescriptionLines } from '../format.js';

/** Human output of `batchwise plan --p99-target` (and p95, p99.9): the answer, its exact percentile, the family it is optimal in. */
const LEVEL_NAME = { p95: 'p95', p99: 'p99', p999: 'p99.9' } as const;

export function formatPercentilePlan(r: PercentilePlanResult, B: number): string[] {
  const level = LEVEL_NAME[r.target.level];
  const x = r.policy;
  const goal = r.objective === 'power' ? `least mean power ${formatPower(x.meanPower)}` : `least weighted cost ${x.averageCost.toPrecision(8)}`;
  return [
    `${level} target ${formatDuration(r.target.seconds)}: ${goal}, exact ${level} ${formatDuration(x.percentile)} (±${relativeText(x)}, ${x.method})`,
    `  Policy (${x.name}; ${ORIGIN[x.origin]}):`,
    ...policyLines(x, B),
    `    E[R] ${formatDuration(x.meanResponseTime)}, E[P] ${formatPower(x.meanPower)}, utilisation ${(x.utilization * 100).toFixed(2)} %, mean batch ${x.meanBatchSize.toFixed(3)}`,
    `  Optimal within ${r.family.name} (${r.family.size} policies), not over all policies.`,
    `  Examined in increasing ${r.objective === 'power' ? 'power' : 'cost'}${r.family.perPhaseLimits > 0 ? ' (the per-phase limits in a second pass, below the first pass’s answer)' : ''}: ${r.examined} response-time laws, ${r.ruledOut} more ruled out by a bound without one.`,
    ...undecidedLines(r.undecided),
  ];
}

/** Members of lower objective the search passed over because their law was out of reach: the answer is optimal among the rest. */
function undecidedLines(undecided: PercentilePlanResult['undecided']): string[] {
  if (undecided.length === 0) return [];
  const shown = undecided.slice(0, 3).map((u) => `    ${u.name} (E[P] ${formatPower(u.meanPower)}, E[R] ${formatDuration(u.meanResponseTime)}): ${u.reason}`);
  const more = undecided.length > 3 ? [`    … and ${undecided.length - 3} more`] : [];
  return [`  Undecided (law out of reach, passed over; the answer is optimal among the other members): ${undecided.length}`, ...shown, ...more];
}

const ORIGIN: Readonly<Record<PercentileMemberResult['origin'], string>> = {
  frontier: 'a mean-optimal frontier vertex',
  'control-limit': 'a control limit with a batch cap',
  'per-phase-limits': 'a control limit per arrival phase with a batch cap',
};

function policyLines(x: PercentileMemberResult, B: number): string[] {
  const rule = (limit: number): string => `wait below ${limit} requests, then serve min(queue, ${x.batchCap})`;
  if (x.origin === 'control-limit') return [`    ${rule(x.controlLimit)}${x.policy.phases ? ' in every phase' : ''}`];
  if (x.origin === 'per-phase-limits') return (x.policy.phases ?? []).map((p) => `    phase ${p.phase} (λ = ${p.rate.toPrecision(6)} /s): ${rule(p.controlLimit)}`);
  return policyDescriptionLines(x.policy, B).map((l) => `    ${l}`);
}

function relativeText(x: PercentileMemberResult): string {
  return `${x.percentileRelative.toExponential(1)} relative`;
}
