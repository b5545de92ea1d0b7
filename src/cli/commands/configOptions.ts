import { Option, type Command } from 'commander';
import { EXPORT_TARGETS } from '../../plan/export/targetNames.js';

/** --from-config, --to and --model-name: a deployed setting read back (evaluate, and simulate, which runs the same round trip). */
export function addConfigOptions(cmd: Command): Command {
  return cmd
    .option('--from-config <file>', "a serving system's configuration (with --to): config.pbtxt, batching_parameters.txt, config.properties / model-config.yaml, Ray deployment options JSON/YAML")
    .addOption(new Option('--to <system>', 'the system that reads --from-config').choices([...EXPORT_TARGETS]))
    .option('--model-name <name>', 'with --from-config: the TorchServe model or Ray deployment to read where the file holds several (default the first)');
}
