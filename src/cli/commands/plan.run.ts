import { ScenarioError } from '../../model/errors.js';
import { validateScenario } from '../../model/validate.js';
import type { PercentileTarget } from '../../plan/percentileTarget.js';
import { planScenario, type PlanResult, type PlanTarget } from '../../plan/constrained.js';
import type { Figures } from '../../plan/figures.js';
import type { Mix } from '../../plan/mix.js';
import type { PolicyDescription } from '../../solve/result.js';
import { formatDuration, formatPower } from '../../plan/units.js';
import { policyDescriptionLines } from '../format.js';
import { readJsonFile } from '../io.js';
import { backendOf, percentileTargetOf, planTarget } from '../options.js';
import { formatPercentilePlan } from './plan.percentile.js';
import { planRemote, type RemoteOptions } from '../remote.js';
import { statusLine } from '../progress.js';

/** `batchwise plan`, loaded only when it runs (registration: plan.ts). */
export interface PlanOptions extends RemoteOptions {
  latencyTarget?: string;
  powerBudget?: string;
  p95Target?: string;
  p99Target?: string;
  p999Target?: string;
  objective?: 'power' | 'cost';
  json?: boolean;
  backend?: string;
}

export async function runPlan(file: string, o: PlanOptions): Promise<void> {
  const percentile = percentileTargetOf(o);
  if (percentile) return o.server ? runRemotePlan(file, o, o.server, percentile.target) : runPercentilePlan(file, o, percentile);
  if (o.objective !== undefined) throw new ScenarioError('--objective', 'applies to percentile targets (--p95-target, --p99-target, --p999-target) only');
  const target = planTarget(o);
  return o.server ? runRemotePlan(file, o, o.server, target) : runMeanPlan(file, o, target);
}

async function runMeanPlan(file: string, o: PlanOptions, target: PlanTarget): Promise<void> {
  const scenario = validateScenario(readJsonFile(file));
  const field = target.kind === 'latency' ? '--latency-target' : '--power-budget';
  const status = statusLine(process.stderr.isTTY === true, 'plan');
  const result = await planScenario(scenario, target, { backend: backendOf(o), targetField: field, onProgress: status.set }).finally(status.stop);
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatPlan(result, scenario.params.maxBatchSize).join('\n')}\n`);
}

/** `plan --p99-target` (p95, p99.9): the least-objective policy of a stated family meeting the exact percentile. */
async function runPercentilePlan(file: string, o: PlanOptions, t: { target: PercentileTarget; flag: string }): Promise<void> {
  const scenario = validateScenario(readJsonFile(file));
  const status = statusLine(process.stderr.isTTY === true, 'plan');
  // The planner loads only on this route: it pulls in the response-time law.
  const { planPercentileTarget } = await import('../../plan/percentileTarget.js');
  const opts = { objective: o.objective, backend: backendOf(o), targetField: t.flag, onProgress: status.set };
  const result = await planPercentileTarget(scenario, t.target, opts).finally(status.stop);
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatPercentilePlan(result, scenario.params.maxBatchSize).join('\n')}\n`);
}

const REQUEST_FLAGS: Readonly<Record<string, string>> = {
  latencyTarget: '--latency-target',
  powerBudget: '--power-budget',
  p95Target: '--p95-target',
  p99Target: '--p99-target',
  p999Target: '--p999-target',
  objective: '--objective',
};

/** `plan --server`: the same question through the Plan RPC, printed as a local plan prints. */
async function runRemotePlan(file: string, o: PlanOptions, server: string, target: PlanTarget | PercentileTarget): Promise<void> {
  const json = readJsonFile(file);
  // Validated here too: bad input is reported before connecting, with the same field names as locally.
  const B = validateScenario(json).params.maxBatchSize;
  if (o.backend !== undefined) throw new ScenarioError('--backend', 'applies to local plans only (the server picks its own)');
  const request =
    'level' in target
      ? { [`${target.level}Target`]: target.seconds, ...(o.objective ? { objective: o.objective } : {}) }
      : target.kind === 'latency'
        ? { latencyTarget: target.seconds }
        : { powerBudget: target.watts };
  const answer = await planRemote({ ...o, server }, json, request).catch((e: unknown) => {
    // The server names request fields (p99Target); say the flag the user typed instead.
    const flag = e instanceof ScenarioError ? REQUEST_FLAGS[e.field] : undefined;
    throw flag ? new ScenarioError(flag, (e as ScenarioError).reason) : e;
  });
  const lines = answer.kind === 'percentile' ? formatPercentilePlan(answer.result, B) : formatPlan(answer.result, B);
  process.stdout.write(o.json ? `${JSON.stringify(answer.result, null, 2)}\n` : `${lines.join('\n')}\n`);
}

export function figuresLine(f: Figures): string {
  return (
    `E[R] ${formatDuration(f.meanResponseTime)}, E[P] ${formatPower(f.meanPower)}, ` +
    `utilisation ${(f.utilization * 100).toFixed(2)} %, mean batch ${f.meanBatchSize.toFixed(3)}`
  );
}

function actionText(a: number): string {
  return a === 0 ? 'wait' : `serve ${a}`;
}

function policyLines(p: PolicyDescription, B: number, indent: string): string[] {
  return policyDescriptionLines(p, B).map((l) => `${indent}${l}`);
}

/** Where a mix tosses its coin: a queue length, and the arrival phase under bursty arrivals. */
function coinState(m: Mix, phased: boolean): string {
  return phased ? `the queue length is ${m.state} in arrival phase ${m.phase}` : `the queue length is ${m.state}`;
}

export function formatPlan(r: PlanResult, B: number): string[] {
  const goal =
    r.target.kind === 'latency'
      ? `Latency target ${formatDuration(r.target.seconds)}: least mean power ${formatPower(r.optimum.meanPower)}`
      : `Power budget ${formatPower(r.target.watts)}: least mean response time ${formatDuration(r.optimum.meanResponseTime)}`;
  const out = [`${goal} (${r.status === 'binding' ? 'on the target: a randomised mix of two policies' : 'the target is slack'})`];
  if (r.status === 'slack') {
    out.push(
      r.target.kind === 'latency'
        ? '  The least-power policy already meets the target:'
        : '  The least-latency policy already stays within the budget:',
      ...policyLines(r.deterministic.policy, B, '    '),
      `    ${figuresLine(r.deterministic)}`,
    );
  }
  const m = r.mix;
  const phased = r.deterministic.policy.phases !== undefined;
  if (m) {
    const [a1, a2] = m.actions;
    const at = coinState(m, phased);
    out.push(
      m.kind === 'single-state'
        ? `  The two policies differ only where ${at}: there, ${actionText(a1)} with probability ${m.probability.toFixed(6)}, else ${actionText(a2)}.`
        : `  Each time ${at}, follow policy A with probability ${m.probability.toFixed(6)} until that state recurs, else policy B.`,
      `  Time (and request) share under A: ${m.timeShare.toFixed(6)}; mean time between visits to that state: A ${formatDuration(m.cycleTimes[0])}, B ${formatDuration(m.cycleTimes[1])}`,
      `  Mix (exact): ${figuresLine(m.figures)}`,
      '  Policy A:',
      ...policyLines(m.first.policy, B, '    '),
      `    ${figuresLine(m.first)}`,
      '  Policy B:',
      ...policyLines(m.second.policy, B, '    '),
      `    ${figuresLine(m.second)}`,
      '  Best deterministic policy meeting the target:',
      ...policyLines(r.deterministic.policy, B, '    '),
      `    ${figuresLine(r.deterministic)}`,
    );
  }
  const v = r.vertexMix;
  if (v && m && (v.state !== m.state || v.phase !== m.phase || v.kind !== m.kind)) {
    out.push(
      `  Or alternate the two frontier vertices below: each time ${coinState(v, phased)}, follow the first with probability ` +
        `${v.probability.toFixed(6)} until that state recurs, else the second (time share ${v.timeShare.toFixed(6)}; E[P] ${formatPower(v.figures.meanPower)}, E[R] ${formatDuration(v.figures.meanResponseTime)}).`,
    );
  }
  if (r.bracket) {
    const b = r.bracket;
    out.push(
      `  Adjacent frontier vertices: ${formatDuration(b.lower.meanResponseTime)} / ${formatPower(b.lower.meanPower)} and ` +
        `${formatDuration(b.upper.meanResponseTime)} / ${formatPower(b.upper.meanPower)}, tied at ${(b.weight / 1e3).toPrecision(6)} W per ms of latency`,
    );
  }
  const pb = r.limits.powerBound;
  out.push(
    `  Limits: least achievable E[R] ${formatDuration(r.limits.minLatency)}; least E[P] ${formatPower(pb.infimum)} ` +
      (pb.attained ? `(batches of ${pb.batchSizes[0]})` : '(approached only as latency grows without bound)'),
    `  Solves: ${r.solves}`,
  );
  return out;
}
