import { Option, type Command } from 'commander';
import { addRemoteOptions } from '../remote.js';
import type { PlanOptions } from './plan.run.js';
import { backendOption, verboseOption } from './solve.js';

export function registerPlan(program: Command): void {
  const cmd = program
    .command('plan')
    .description('least mean power under a latency target (mean or percentile), or least latency under a power budget')
    .argument('<scenario>', 'scenario JSON file (its objective weights are used only by --objective cost)')
    .addOption(new Option('--latency-target <duration>', 'mean response time target, e.g. 10ms, 800us, 0.01s'))
    .addOption(new Option('--power-budget <power>', 'mean power budget, e.g. 120W, 1.2kW'))
    .addOption(new Option('--p95-target <duration>', '95th-percentile response time target (exact, within a stated policy family)'))
    .addOption(new Option('--p99-target <duration>', '99th-percentile response time target, e.g. 15ms'))
    .addOption(new Option('--p999-target <duration>', '99.9th-percentile response time target'))
    .addOption(new Option('--objective <objective>', 'with a percentile target: least mean power, or least weighted cost (the scenario\'s weights)').choices(['power', 'cost']))
    .option('--json', 'print the result object as JSON')
    .addOption(backendOption())
    .addOption(verboseOption());
  // The planner loads only when the command runs (plan.run.ts); --server sends it to the Plan RPC.
  addRemoteOptions(cmd).action(async (file: string, o: PlanOptions) => (await import('./plan.run.js')).runPlan(file, o));
}
