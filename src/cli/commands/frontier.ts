import { InvalidArgumentError, type Command } from 'commander';
import type { FrontierFlags } from './frontier.run.js';
import { backendOption, verboseOption } from './solve.js';

export function registerFrontier(program: Command): void {
  program
    .command('frontier')
    .description('the latency–power Pareto frontier: the policies optimal for some trade-off weight')
    .argument('<scenario>', 'scenario JSON file (its objective weights are not used)')
    .option('--svg <file>', 'also draw the frontier as an SVG chart')
    .option('--svg-p99 <file>', "also draw the frontier in p99: each vertex at its exact p99 response time (Poisson arrivals), control limits labelled")
    .option('--max-latency <duration>', 'stop once a vertex reaches this mean response time (default 4× the least achievable)')
    .option('--resolution <r>', 'relative resolution of the vertex search (default 1e-4)', resolution)
    .option('--latency-target <duration>', 'also solve for this mean latency target and mark it and its optimum on the chart')
    .option('--power-budget <power>', 'also solve for this power budget and mark it and its optimum on the chart')
    .option('--json', 'print the frontier as JSON')
    .addOption(backendOption())
    .addOption(verboseOption())
    // The frontier search loads only when the command runs (frontier.run.ts).
    .action(async (file: string, o: FrontierFlags) => (await import('./frontier.run.js')).runFrontier(file, o));
}

function resolution(v: string): number {
  const r = Number(v);
  if (!(r >= 1e-12 && r < 1)) throw new InvalidArgumentError(`must be a number in [1e-12, 1) (got ${v})`);
  return r;
}
