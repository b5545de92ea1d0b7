import { Option, type Command } from 'commander';
import { EXPORT_TARGETS } from '../../plan/export/targetNames.js';
import { addRemoteOptions } from '../remote.js';
import type { EvaluateOptions } from './evaluate.run.js';
import { positiveInt } from './simulate.js';

export function registerEvaluate(program: Command): void {
  const cmd = program
    .command('evaluate')
    .description('evaluate a given policy exactly, or a serving system\'s configuration file in simulation against the optimum')
    .argument('<scenario>', 'scenario JSON file')
    .option('--policy <policy>', 'greedy | static:b | control-limit:M | table:a0,a1,…')
    .option('--from-config <file>', "a serving system's configuration (with --to): config.pbtxt, batching_parameters.txt, config.properties / model-config.yaml, Ray deployment options JSON/YAML")
    .addOption(new Option('--to <system>', 'the system that reads --from-config').choices([...EXPORT_TARGETS]))
    .option('--requests <n>', 'with --from-config: requests of each simulation (default 1000000)', positiveInt('--requests'))
    .option('--seed <n>', 'with --from-config: seed of the simulations (default 1)', positiveInt('--seed'))
    .option('--model-name <name>', 'with --from-config: the TorchServe model or Ray deployment to read where the file holds several (default the first)')
    .option('--json', 'print the evaluation as JSON');
  // The evaluator (and with --from-config the simulator) loads only when the command runs (evaluate.run.ts).
  addRemoteOptions(cmd).action(async (file: string, o: EvaluateOptions) => (await import('./evaluate.run.js')).runEvaluate(file, o));
}
