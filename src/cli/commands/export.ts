import { Option, type Command } from 'commander';
import { EXPORT_TARGETS } from '../../plan/export/targetNames.js';
import type { ExportOptions } from './export.run.js';
import { backendOption, verboseOption } from './solve.js';
import { positiveInt } from './simulate.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description("translate the optimal policy into a serving system's batching settings, delay tuned in simulation")
    .argument('<scenario>', 'scenario JSON file')
    .addOption(new Option('--to <system>', 'target serving system').choices([...EXPORT_TARGETS]).makeOptionMandatory())
    .option('--requests <n>', 'requests of the final simulations (default 1000000)', positiveInt('--requests'))
    .option('--tuning-requests <n>', 'requests per simulation while tuning the delay (default 200000)', positiveInt('--tuning-requests'))
    .option('--seed <n>', 'seed of the final simulations; tuning uses seed + 1 (default 1)', positiveInt('--seed'))
    .option('--model-name <name>', 'model name used in the configuration (default "model"); with --merge, the TorchServe model or Ray deployment to update')
    .option(
      '--merge <file>',
      "write the setting into this existing configuration of --to (config.pbtxt, batching_parameters.txt, config.properties / model-config.yaml, Ray Serve config YAML): only the batching fields change, the rest is kept byte for byte; what changed on stderr",
    )
    .option('--json', 'print the result as JSON')
    .addOption(backendOption())
    .addOption(verboseOption())
    // The solver, the simulator and the config writers load only when the command runs (export.run.ts).
    .action(async (file: string, o: ExportOptions) => (await import('./export.run.js')).runExport(file, o));
}
