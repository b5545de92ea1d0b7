import type { Command } from 'commander';
import type { CompareFlags } from './compare.run.js';
import { positiveInt } from './simulate.js';

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('compare the optimal policy with greedy, the best static batch size and the best Triton delay, by simulation')
    .argument('<scenario>', 'scenario JSON file')
    .option('--requests <n>', 'simulated requests per row', positiveInt('--requests'), 1_000_000)
    .option('--tuning-requests <n>', 'simulated requests per Triton delay tried', positiveInt('--tuning-requests'), 200_000)
    .option('--seed <s>', 'seed', positiveInt('--seed'), 1)
    .option('--delays <list>', 'Triton max_queue_delay values to try, e.g. 0,500us,1ms,2ms (default: a grid from the service times)')
    .option('--json', 'print the comparison as JSON')
    // The simulator and the solver load only when the command runs (compare.run.ts).
    .action(async (file: string, o: CompareFlags) => (await import('./compare.run.js')).runCompare(file, o));
}
