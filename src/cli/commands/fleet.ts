import type { Command } from 'commander';
import { validateScenario } from '../../model/validate.js';
import { sizeFleet, type FleetPoint } from '../../plan/fleet.js';
import { formatDuration, formatPower, parseDuration, parseRate } from '../../plan/units.js';
import { readJsonFile } from '../io.js';
import { backendOf, figuresLine } from './plan.js';
import { backendOption } from './solve.js';
import { positiveInt } from './simulate.js';

export function registerFleet(program: Command): void {
  program
    .command('fleet')
    .description('least number of accelerators (total rate split evenly) that meets a latency target')
    .argument('<scenario>', 'scenario JSON file for one accelerator (its arrivalRate and weights are not used)')
    .requiredOption('--total-rate <rate>', 'total arrival rate over the fleet, requests/s (e.g. 20000)')
    .requiredOption('--latency-target <duration>', 'mean response time target, e.g. 10ms')
    .option('--p99-target <duration>', '99th-percentile response time target, checked by simulation')
    .option('--max-accelerators <n>', 'largest fleet to consider (default 1024)', positiveInt('--max-accelerators'))
    .option('--requests <n>', 'requests per p99 simulation (default 200000)', positiveInt('--requests'))
    .option('--seed <n>', 'seed of the p99 simulations (default 1)', positiveInt('--seed'))
    .option('--json', 'print the result as JSON')
    .addOption(backendOption())
    .action(
      async (
        file: string,
        o: { totalRate: string; latencyTarget: string; p99Target?: string; maxAccelerators?: number; requests?: number; seed?: number; json?: boolean; backend?: string },
      ) => {
        const totalRate = parseRate(o.totalRate, '--total-rate');
        const latencyTarget = parseDuration(o.latencyTarget, '--latency-target');
        const p99Target = o.p99Target !== undefined ? parseDuration(o.p99Target, '--p99-target') : undefined;
        const scenario = validateFleetScenario(readJsonFile(file), totalRate);
        const r = await sizeFleet(scenario, {
          totalRate,
          latencyTarget,
          p99Target,
          maxAccelerators: o.maxAccelerators,
          simulation: { requests: o.requests, seed: o.seed },
          backend: backendOf(o),
        });
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
      },
    );
}

/**
 * The scenario file describes one accelerator; its arrivalRate is replaced by total/n. It
 * must still validate, so an arrivalRate that the file leaves out is filled with a small one.
 */
function validateFleetScenario(json: unknown, totalRate: number): ReturnType<typeof validateScenario> {
  if (typeof json === 'object' && json !== null && !('arrivalRate' in json)) {
    return validateScenario({ ...(json as object), arrivalRate: Math.min(totalRate, 1) });
  }
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
  if (t && t.policy === 'frontier') {
    lines.push(
      `  the plan's policy simulates a p99 of ${formatDuration(t.planP99)}: the fleet runs the frontier policy with control limit ${t.controlLimit} instead,`,
      `    simulated p99 ${formatDuration(t.p99)}, E[R] ${formatDuration(t.meanResponseTime)}, E[P] ${formatPower(t.meanPower)} (${t.requests.toLocaleString('en-US')} requests, seed ${t.seed})`,
    );
  } else if (t) {
    lines.push(`  simulated p99 ${formatDuration(t.p99)} (${t.requests.toLocaleString('en-US')} requests, seed ${t.seed})`);
  }
  return lines;
}
