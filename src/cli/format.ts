import type { SideBySide } from '../plan/export/sideBySide.js';
import type { PolicySummary } from '../policy/policy.js';
import type { EvaluationResult, PolicyDescription, SolveResult } from '../solve/result.js';

const ms = (s: number): string => `${(s * 1e3).toFixed(4)} ms`;

/** Consecutive queue lengths with the same action, as "a–b: action". */
export function actionRuns(actions: readonly number[], from = 0): string[] {
  const runs: string[] = [];
  let start = from;
  for (let s = from + 1; s <= actions.length; s++) {
    if (s === actions.length || actions[s] !== actions[start]) {
      const range = s - 1 === start ? `${start}` : `${start}–${s - 1}`;
      runs.push(`${range}: ${actions[start] === 0 ? 'wait' : `serve ${actions[start]}`}`);
      start = s;
    }
  }
  return runs;
}

export function describePolicy(p: PolicySummary, B: number): string[] {
  const lines = [
    p.controlLimit <= 1
      ? `serve as soon as anything is queued (up to ${B} at a time)`
      : `wait until ${p.controlLimit} requests are queued, then serve them all (up to ${B} at a time)`,
  ];
  if (p.isControlLimit) {
    lines[0] += '  [pure control-limit policy]';
  } else if (p.deviations.length > 0) {
    const first = p.deviations[0].queue;
    const runs = actionRuns(p.actions, first);
    const shown = runs.slice(0, 8).join('; ');
    lines.push(`except from queue length ${first} on: ${shown}${runs.length > 8 ? `; … (${runs.length - 8} more runs)` : ''}`);
  }
  return lines;
}

/** A result's policy as lines; under bursty arrivals (docs/model.md §7) one control limit and table per arrival phase. */
export function policyDescriptionLines(d: PolicyDescription, B: number): string[] {
  if (!d.phases) return describePolicy(d, B);
  return d.phases.flatMap((p) => [
    `phase ${p.phase} (λ = ${p.rate.toPrecision(6)} /s, ${(100 * p.probability).toFixed(1)} % of the time):`,
    ...describePolicy(p, B).map((l) => `  ${l}`),
  ]);
}

function figures(r: EvaluationResult): string[] {
  return [
    `  mean response time  ${ms(r.meanResponseTime)}`,
    ...percentileLines(r),
    `  mean power          ${r.meanPower.toFixed(4)} W`,
    `  throughput          ${r.throughput.toFixed(2)} /s   utilisation ${(r.utilization * 100).toFixed(2)} %   mean batch ${r.meanBatchSize.toFixed(3)}`,
  ];
}

/** The percentiles line, or why there are none; nothing when they were skipped. */
export function percentileLines(r: Pick<EvaluationResult, 'latency' | 'latencyUnavailable'>): string[] {
  const text = percentileText(r);
  return text === undefined ? [] : [`  response time       ${text}`];
}

/** The five percentiles in milliseconds with their accuracy, or why there are none; undefined when they were skipped. */
export function percentileText(r: Pick<EvaluationResult, 'latency' | 'latencyUnavailable'>): string | undefined {
  const l = r.latency;
  if (!l) return r.latencyUnavailable === undefined ? undefined : `percentiles unavailable: ${r.latencyUnavailable}`;
  const at = (name: string, s: number): string => `${name} ${(s * 1e3).toPrecision(3)} ms`;
  const q = [at('p50', l.p50), at('p90', l.p90), at('p95', l.p95), at('p99', l.p99), at('p99.9', l.p999)].join('  ');
  return `${q}  (±${l.accuracy.percentileRelative.toPrecision(1)} relative)`;
}

/** What each way of stopping short of convergence means for the figures above it. */
const STOP_WARNINGS: Readonly<Record<SolveResult['solver']['stopReason'], string | null>> = {
  converged: null,
  'max-iterations': 'the iteration cap was reached before the bounds met the tolerance: g* lies in the interval shown, which is wider than asked',
  'precision-limit':
    'the bounds stopped narrowing at the limit of f64 precision before meeting the tolerance: g* lies in the interval shown, which is as narrow as this scenario allows',
  'tail-mass':
    'solver.maxQueue is too small for this scenario: the policy leaves the queue near S too often, so the interval certifies the truncated model, not the real system (the figures above are the policy\'s exact ones); use a larger maxQueue or 0 for automatic',
};

export function formatSolve(r: SolveResult, B: number): string {
  const s = r.solver;
  const out = [
    'Optimal policy:',
    ...policyDescriptionLines(r.policy, B).map((l) => `  ${l}`),
    `Average cost g = ${r.averageCost.toPrecision(12)}  (certified optimum in [${r.averageCostLower.toPrecision(12)}, ${r.averageCostUpper.toPrecision(12)}])`,
    ...figures(r),
    `Solver: ${s.backend}${s.adapter ? ` (${s.adapter})` : ''}, ${s.method}, S = ${s.maxQueue} (${s.states} states), ` +
      `${s.iterations} iterations, ${(s.seconds * 1e3).toFixed(1)} ms, tail mass ${s.tailMass.toExponential(2)}, ${s.stopReason}`,
  ];
  const warning = STOP_WARNINGS[s.stopReason];
  if (warning) out.push(`warning: ${warning}`);
  return out.join('\n');
}

export function formatEvaluation(r: EvaluationResult, B: number): string {
  return ['Policy:', ...policyDescriptionLines(r.policy, B).map((l) => `  ${l}`), `Average cost g = ${r.averageCost.toPrecision(12)}`, ...figures(r)].join(
    '\n',
  );
}

/** With restrictions: the unrestricted optimum, what the restriction costs exactly, and the setting's paired gap to it (export and evaluate --from-config). */
export function unrestrictedLines(u: SideBySide['unrestricted'], pm: (h: number | null) => string): string[] {
  if (!u) return [];
  const g = u.gap;
  return [
    `  unrestricted optimum (control limit ${u.controlLimit}): exact cost ${u.averageCost.toPrecision(8)}; the restriction costs ${((100 * u.restrictionCost) / u.averageCost).toFixed(3)} % (exact)`,
    `  gap to the unrestricted optimum: ${(g.relative * 100).toFixed(3)} %${g.halfWidth === null ? '' : ` ± ${((g.halfWidth / u.averageCost) * 100).toFixed(3)} %`}` +
      ` (cost ${g.difference.toPrecision(4)}${pm(g.halfWidth)}, paired on the same arrivals)`,
  ];
}
