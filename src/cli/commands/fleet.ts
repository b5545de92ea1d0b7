import type { Command } from 'commander';
import { ROUTER_NAMES } from '../../fleet/routerNames.js';
import { addRemoteOptions } from '../remote.js';
import type { FleetPlanOptions, FleetSimulateOptions, FleetSizeOptions } from './fleet.run.js';
import { backendOption, verboseOption } from './solve.js';
import { positiveInt } from './simulate.js';

export function registerFleet(program: Command): void {
  const fleet = program
    .command('fleet')
    .description('least number of accelerators (total rate split evenly) that meets a latency target')
    .argument('<scenario>', 'scenario JSON file for one accelerator (its arrivalRate and weights are not used)')
    .option('--total-rate <rate>', 'total arrival rate over the fleet, requests/s (e.g. 20000); required')
    .option('--latency-target <duration>', 'mean response time target, e.g. 10ms; required')
    .option('--p99-target <duration>', '99th-percentile response time target: exact where the response-time law is available, else by simulation')
    .option('--max-accelerators <n>', 'largest fleet to consider (default 1024)', positiveInt('--max-accelerators'))
    .option('--requests <n>', 'requests per p99 simulation (default 200000)', positiveInt('--requests'))
    .option('--seed <n>', 'seed of the p99 simulations (default 1)', positiveInt('--seed'))
    .option('--json', 'print the result as JSON')
    .addOption(backendOption())
    .addOption(verboseOption())
    // The planner and the fleet simulator load only when a fleet command runs (fleet.run.ts).
    .action(async (file: string, o: FleetSizeOptions) => (await import('./fleet.run.js')).runFleetSize(file, o));
  // The subcommands share option names (--requests, --seed, --json) with the sizing command:
  // options after a subcommand's name belong to it.
  fleet.enablePositionalOptions();
  registerFleetSimulate(fleet);
  registerFleetPlan(fleet);
}

/** `batchwise fleet simulate FLEET.json --router …`: the fleet simulator (src/fleet); `--server`: the FleetSimulate RPC. */
function registerFleetSimulate(fleet: Command): void {
  const cmd = fleet
    .command('simulate')
    .description('simulate a fleet scenario (accelerator groups, request classes) under a router')
    .argument('<fleet>', 'fleet scenario JSON (see docs/fleet.md)')
    .option('--router <name>', `${ROUTER_NAMES.join(' | ')} (default jsq)`, 'jsq')
    .option('--weights <file>', 'trained router weights (batchwise train --out), for --router learned')
    .option('--requests <n>', 'requests to measure over all classes (default 1000000)', positiveInt('--requests'))
    .option('--seed <n>', 'seed (default 1)', positiveInt('--seed'))
    .option('--json', 'print the result as JSON');
  addRemoteOptions(cmd).action(async (file: string, o: FleetSimulateOptions) => (await import('./fleet.run.js')).runFleetSimulate(file, o));
}

/** `batchwise fleet plan FLEET.json`: best segregation by exact solves; `--least` sizes one group for the targets; `--server`: the FleetPlan RPC. */
function registerFleetPlan(fleet: Command): void {
  const cmd = fleet
    .command('plan')
    .description('best class segregation with optimal batching (exact solves); --least: fewest accelerators meeting every class target')
    .argument('<fleet>', 'fleet scenario JSON (see docs/fleet.md)')
    .option('--least', 'find the least count of one accelerator group that meets every class latencyTarget')
    .option('--kind <name>', 'the accelerator group to size (default: the first)')
    .option('--max-accelerators <n>', 'largest count to try (default 64)', positiveInt('--max-accelerators'))
    .option('--json', 'print the result as JSON');
  addRemoteOptions(cmd).action(async (file: string, o: FleetPlanOptions) => (await import('./fleet.run.js')).runFleetPlan(file, o));
}
