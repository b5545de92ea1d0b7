import { writeFileSync } from 'node:fs';
import { ScenarioError } from '../../model/errors.js';
import { vertexP99s } from '../../plan/frontierLatency.js';
import { serviceLabel } from '../../plan/scenarioLabel.js';
import { validateScenario } from '../../model/validate.js';
import { describePolicy } from '../../solve/result.js';
import { computeFrontier, type Frontier } from '../../plan/frontier.js';
import { renderFrontierSvg } from '../../plan/svg/frontierChart.js';
import { formatDuration, formatPower, parseDuration } from '../../plan/units.js';
import { readJsonFile } from '../io.js';
import { planScenario } from '../../plan/constrained.js';
import { backendOf, planTarget } from '../options.js';
import { statusLine } from '../progress.js';
import { formatPlan } from './plan.run.js';

/** `batchwise frontier`, loaded only when it runs (registration: frontier.ts). */
export interface FrontierFlags {
  svg?: string;
  svgP99?: string;
  maxLatency?: string;
  resolution?: number;
  latencyTarget?: string;
  powerBudget?: string;
  json?: boolean;
  backend?: string;
}

export async function runFrontier(file: string, o: FrontierFlags): Promise<void> {
  const scenario = validateScenario(readJsonFile(file));
  const target = o.latencyTarget !== undefined || o.powerBudget !== undefined ? planTarget(o) : undefined;
  const status = statusLine(process.stderr.isTTY === true, 'frontier');
  const f = await computeFrontier(scenario, {
    onProgress: status.set,
    maxLatency: o.maxLatency !== undefined ? parseDuration(o.maxLatency, '--max-latency') : undefined,
    reach: target?.kind === 'latency' ? { latency: target.seconds } : target?.kind === 'power' ? { power: target.watts } : undefined,
    resolution: o.resolution,
    backend: backendOf(o),
  }).catch((e: unknown) => {
    status.stop();
    throw e;
  });
  const field = target?.kind === 'latency' ? '--latency-target' : '--power-budget';
  const plan = target ? await planScenario(scenario, target, { backend: backendOf(o), targetField: field, onProgress: status.set }).finally(status.stop) : undefined;
  if (!target) status.stop();
  const B = scenario.params.maxBatchSize;
  const rows = f.vertices.map((v) => ({
    meanResponseTime: v.figures.meanResponseTime,
    meanPower: v.figures.meanPower,
    utilization: v.figures.utilization,
    meanBatchSize: v.figures.meanBatchSize,
    weightLow: v.weightLow,
    weightHigh: Number.isFinite(v.weightHigh) ? v.weightHigh : null,
    solvedAt: Number.isFinite(v.solvedAt) ? v.solvedAt : null,
    policy: describePolicy(scenario.params, v.policy),
  }));
  if (o.svg) {
    const points = rows.map((r) => ({ meanResponseTime: r.meanResponseTime, meanPower: r.meanPower, controlLimit: r.policy.controlLimit }));
    writeFileSync(
      o.svg,
      renderFrontierSvg(points, {
        powerFloor: f.powerBound.infimum,
        title: `Latency–power frontier (λ = ${scenario.params.arrivalRate} /s)`,
        target,
        optimum: plan?.optimum,
      }),
    );
  }
  if (o.svgP99) {
    const got = vertexP99s(scenario.params, f.vertices);
    if ('unavailable' in got) throw new ScenarioError('--svg-p99', `the vertices' percentiles cannot be computed: ${got.unavailable}`);
    const points = rows.map((r, i) => ({ meanResponseTime: r.meanResponseTime, meanPower: r.meanPower, controlLimit: r.policy.controlLimit, p99: got.p99[i] }));
    writeFileSync(
      o.svgP99,
      renderFrontierSvg(points, {
        latency: 'p99',
        powerFloor: f.powerBound.infimum,
        title: `Latency–power frontier in p99 (λ = ${scenario.params.arrivalRate} /s · ${serviceLabel(scenario.params)})`,
        target: target?.kind === 'power' ? target : undefined,
      }),
    );
  }
  if (o.json) {
    const { vertices: _v, ...rest } = f;
    process.stdout.write(`${JSON.stringify({ ...rest, vertices: rows, ...(plan ? { plan } : {}) }, null, 2)}\n`);
    return;
  }
  const lines = formatFrontier(f, rows);
  if (plan) lines.push(...formatPlan(plan, B));
  process.stdout.write(`${lines.join('\n')}\n`);
}

function weight(w: number | null): string {
  if (w === null) return '∞';
  return (w / 1e3).toPrecision(4);
}

function formatFrontier(
  f: Frontier,
  rows: { meanResponseTime: number; meanPower: number; meanBatchSize: number; weightLow: number; weightHigh: number | null; policy: { controlLimit: number; isControlLimit: boolean } }[],
): string[] {
  const out = [
    `Latency–power frontier: ${rows.length} vertices, ${f.solves} solves (resolution ${f.resolution})`,
    '  #   E[R]           E[P]          mean batch  control limit   optimal for W per ms of latency in',
  ];
  rows.forEach((r, i) => {
    out.push(
      `  ${String(i).padStart(2)}  ${formatDuration(r.meanResponseTime).padEnd(13)}  ${formatPower(r.meanPower).padEnd(12)}  ` +
        `${r.meanBatchSize.toFixed(3).padStart(10)}  ${String(r.policy.controlLimit).padStart(5)}${r.policy.isControlLimit ? ' (pure)' : '       '}   ` +
        `[${weight(r.weightLow)}, ${weight(r.weightHigh)}]`,
    );
  });
  const pb = f.powerBound;
  out.push(
    f.complete
      ? `The last vertex reaches the least possible mean power, ${formatPower(pb.infimum)}: the frontier is complete.`
      : `Stopped at ${formatDuration(f.maxLatency)}; mean power only approaches ${formatPower(pb.infimum)} as latency grows without bound.`,
  );
  return out;
}
