import type { Command } from 'commander';
import { addConfigOptions } from './configOptions.js';
import { addRemoteOptions } from '../remote.js';
import type { EvaluateOptions } from './evaluate.run.js';
import { positiveInt } from './simulate.js';

export function registerEvaluate(program: Command): void {
  const cmd = program
    .command('evaluate')
    .description('evaluate a given policy exactly, or a serving system\'s configuration file in simulation against the optimum')
    .argument('<scenario>', 'scenario JSON file')
    .option('--policy <policy>', 'greedy | static:b | control-limit:M | table:a0,a1,…')
    .option('--requests <n>', 'with --from-config: requests of each simulation (default 1000000)', positiveInt('--requests'))
    .option('--seed <n>', 'with --from-config: seed of the simulations (default 1)', positiveInt('--seed'))
    .option('--json', 'print the evaluation as JSON')
    .option('--no-percentiles', 'leave the response-time percentiles out');
  addConfigOptions(cmd);
  // The evaluator (and with --from-config the simulator) loads only when the command runs (evaluate.run.ts).
  addRemoteOptions(cmd).action(async (file: string, o: EvaluateOptions) => (await import('./evaluate.run.js')).runEvaluate(file, o));
}
