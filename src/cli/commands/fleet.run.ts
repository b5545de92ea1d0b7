import { InvalidArgumentError } from 'commander';
import { formatFleetSimulation, formatPlan } from '../../fleet/format.js';
import { runFleet } from '../../fleet/run.js';
import { validateFleet } from '../../fleet/scenario.js';
import { planSegregation } from '../../fleet/segregation.js';
import { leastAccelerators } from '../../fleet/sizing.js';
import type { RouterWeights } from '../../fleet/learn/linearRouter.js';
import { ScenarioError } from '../../model/errors.js';
import { validateScenario } from '../../model/validate.js';
import { sizeFleet, type FleetPoint } from '../../plan/fleet.js';
import { formatDuration, formatPower, parseDuration, parseRate } from '../../plan/units.js';
import { readJsonFile } from '../io.js';
import { withClient, type RemoteOptions } from '../remote.js';
import { scenarioJsonNames } from '../../service/convert/jsonNames.js';
import { backendOf } from '../options.js';
import { figuresLine } from './plan.run.js';
import { scaledMmpp } from '../../model/mmpp/process.js';
import { validateArrivalProcess } from '../../model/mmpp/validate.js';
import { statusLine } from '../progress.js';

/** `batchwise fleet`, `fleet simulate` and `fleet plan`, loaded only when one runs (registration: fleet.ts). */
export interface FleetSizeOptions {
  totalRate?: string;
  latencyTarget?: string;
  p99Target?: string;
  maxAccelerators?: number;
  requests?: number;
  seed?: number;
  json?: boolean;
  backend?: string;
}

export interface FleetSimulateOptions extends RemoteOptions {
  router: string;
  weights?: string;
  requests?: number;
  seed?: number;
  json?: boolean;
}

export interface FleetPlanOptions extends RemoteOptions {
  least?: boolean;
  kind?: string;
  maxAccelerators?: number;
  json?: boolean;
}

export async function runFleetSize(file: string, o: FleetSizeOptions): Promise<void> {
  // Checked here rather than as commander's required options, which would also be
  // demanded of the `fleet simulate` and `fleet plan` subcommands.
  if (o.totalRate === undefined) throw new InvalidArgumentError("required option '--total-rate <rate>' not specified");
  if (o.latencyTarget === undefined) throw new InvalidArgumentError("required option '--latency-target <duration>' not specified");
  const totalRate = parseRate(o.totalRate, '--total-rate');
  const latencyTarget = parseDuration(o.latencyTarget, '--latency-target');
  const p99Target = o.p99Target !== undefined ? parseDuration(o.p99Target, '--p99-target') : undefined;
  const scenario = validateFleetScenario(readJsonFile(file), totalRate);
  const status = statusLine(process.stderr.isTTY === true, 'fleet');
  const r = await sizeFleet(scenario, {
    onProgress: status.set,
    totalRate,
    latencyTarget,
    p99Target,
    maxAccelerators: o.maxAccelerators,
    simulation: { requests: o.requests, seed: o.seed },
    backend: backendOf(o),
  }).finally(status.stop);
  if (o.json) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return;
  }
  const out = [
    `${r.accelerators} accelerators meet a mean response time of ${formatDuration(latencyTarget)}` +
      (p99Target !== undefined ? ` and a p99 of ${formatDuration(p99Target)}` : '') +
      ` at ${totalRate} requests/s in total.`,
    ...r.rejected.map((x) => `  ${x.accelerators} would not: ${x.reason}`),
    ...pointLines(r.at),
    ...pointLines(r.next),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

/**
 * The scenario file describes one accelerator; its arrivalRate is replaced by total/n. It
 * must still validate, so an arrivalRate that the file leaves out is filled with a small one.
 */
/**
 * The scenario as one accelerator's, before sizeFleet splits Λ: a missing arrivalRate is filled
 * in, and an arrival process only gives the traffic's shape (sizeFleet scales its rates to Λ/n),
 * so it is validated at a mean of min(Λ, 1) /s rather than at whatever scale it was written.
 */
function validateFleetScenario(file: unknown, totalRate: number): ReturnType<typeof validateScenario> {
  const json = scenarioJsonNames(file);
  if (typeof json !== 'object' || json === null) return validateScenario(json);
  const raw = json as Record<string, unknown>;
  const mean = Math.min(totalRate, 1);
  if (raw.arrivalProcess !== undefined && raw.arrivalProcess !== null) {
    const proc = validateArrivalProcess(raw.arrivalProcess).process;
    const shape = scaledMmpp(proc, mean / proc.meanRate);
    const mmpp = { rates: Array.from(shape.rates), generator: Array.from(shape.generator) };
    return validateScenario({ ...raw, arrivalRate: 0, arrivalProcess: { mmpp } });
  }
  if (!('arrivalRate' in raw)) return validateScenario({ ...raw, arrivalRate: mean });
  return validateScenario(json);
}

function pointLines(p: FleetPoint): string[] {
  const plan = p.plan;
  const lines = [
    `With ${p.accelerators} (${+p.ratePerAccelerator.toPrecision(6)} /s each): fleet power ${formatPower(p.fleetPower)} ` +
      `(${formatPower(p.fleetPowerDeterministic)} with the best deterministic policy)`,
    `  per accelerator, ${plan.status === 'binding' ? 'optimum (mix)' : 'optimum'}: ${figuresLine(plan.optimum)}`,
    `  per accelerator, deterministic (control limit ${plan.deterministic.policy.controlLimit}): ${figuresLine(plan.deterministic)}`,
  ];
  const t = p.tail;
  // Exact p99s come from the response-time law; simulated ones name their run.
  const how = (x: NonNullable<typeof t>): string =>
    x.p99Method === 'exact' ? 'exact' : `simulated (${x.requests.toLocaleString('en-US')} requests, seed ${x.seed})`;
  if (t && t.policy === 'frontier') {
    lines.push(
      `  the plan's policy has a p99 of ${formatDuration(t.planP99)}: the fleet runs the frontier policy with control limit ${t.controlLimit} instead,`,
      `    p99 ${formatDuration(t.p99)} ${how(t)}, E[R] ${formatDuration(t.meanResponseTime)}, E[P] ${formatPower(t.meanPower)}`,
    );
  } else if (t) {
    lines.push(`  p99 ${formatDuration(t.p99)} ${how(t)}`);
  }
  return lines;
}

export async function runFleetSimulate(file: string, o: FleetSimulateOptions): Promise<void> {
    const json = readJsonFile(file);
    const f = validateFleet(json); // also before a remote call: the same errors, and the report needs it
    const learned = o.weights !== undefined ? (readJsonFile(o.weights) as RouterWeights) : undefined;
    const { simulation, plan } =
      o.server !== undefined
        ? await withClient({ ...o, server: o.server }, (c, signal) =>
            c.fleetSimulate({ fleet: json, router: o.router, requests: o.requests, seed: o.seed, weights: learned }, { signal }),
          )
        : await runFleet(f, o.router, { requests: o.requests, seed: o.seed, learned });
    if (o.json) {
      process.stdout.write(`${JSON.stringify(plan ? { simulation, plan } : simulation, null, 2)}\n`);
      return;
    }
    process.stdout.write(`${plan ? `${formatPlan(f, plan)}\n` : ''}${formatFleetSimulation(simulation)}\n`);
}

export async function runFleetPlan(file: string, o: FleetPlanOptions): Promise<void> {
    const json = readJsonFile(file);
    const f = validateFleet(json);
    const server = o.server;
    if (o.least) {
      const k = o.kind === undefined ? 0 : f.kinds.findIndex((x) => x.name === o.kind);
      if (k < 0) throw new InvalidArgumentError(`--kind ${o.kind} names no accelerator group (groups: ${f.kinds.map((x) => x.name).join(', ')})`);
      const r =
        server !== undefined
          ? await withClient({ ...o, server }, async (c, signal) => {
              const a = await c.fleetPlan({ fleet: json, least: true, kind: f.kinds[k].name, maxAccelerators: o.maxAccelerators }, { signal });
              return { kind: a.kind ?? f.kinds[k].name, count: a.count ?? 0, plan: a.plan, rejected: a.rejected ?? [] };
            })
          : await leastAccelerators(f, k, o.maxAccelerators);
      if (r === null) throw new ScenarioError('classes', `no count of ${f.kinds[k].name} up to ${o.maxAccelerators ?? 64} meets every class target`);
      if (o.json) {
        process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${r.count} × ${r.kind} meet every class target.\n${formatPlan({ ...f, kinds: f.kinds.map((x, i) => (i === k ? { ...x, count: r.count } : x)) }, r.plan)}\n`);
      return;
    }
    const plan = server !== undefined ? (await withClient({ ...o, server }, (c, signal) => c.fleetPlan({ fleet: json }, { signal }))).plan : await planSegregation(f);
    if (plan === null) throw new ScenarioError('accelerators', 'no segregation of this fleet keeps every class stable');
    if (o.json) {
      process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
      return;
    }
    process.stdout.write(`${formatPlan(f, plan)}\n`);
}
