import type { Command } from 'commander';
import type { TrainOptions } from './train.run.js';
import { positiveInt } from './simulate.js';

/**
 * `batchwise train FLEET.json --algo reinforce|ppo --out POLICY.json`: policy-gradient
 * baselines trained in the simulator (src/fleet/learn). `--task routing` (default) trains the
 * fleet's router; `--task batching` learns a control limit for class 0 alone on one
 * accelerator of the first group (at its even share of the class's traffic).
 */
export function registerTrain(program: Command): void {
  program
    .command('train')
    .description('train a policy-gradient baseline (REINFORCE with value baseline, or PPO) in the simulator')
    .argument('<fleet>', 'fleet scenario JSON (see docs/fleet.md)')
    .requiredOption('--out <file>', 'where to write the trained policy (JSON)')
    .option('--algo <name>', 'reinforce | ppo', 'reinforce')
    .option('--task <name>', 'routing | batching', 'routing')
    .option('--episodes <n>', 'training episodes / iterations (default 30)', positiveInt('--episodes'))
    .option('--requests <n>', 'requests per episode (default 20000)', positiveInt('--requests'))
    .option('--seed <n>', 'seed (default 1)', positiveInt('--seed'))
    .option('--svg <file>', 'write the learning curve as SVG')
    // The fleet simulator and the learners load only when the command runs (train.run.ts).
    .action(async (file: string, o: TrainOptions) => (await import('./train.run.js')).runTrain(file, o));
}
