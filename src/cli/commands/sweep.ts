import { Option, type Command } from 'commander';
import { addRemoteOptions } from '../remote.js';
import type { SweepOptions } from './sweep.run.js';

export function registerSweep(program: Command): void {
  const cmd = program
    .command('sweep')
    .description('solve a grid or list of scenarios (a SolveBatchRequest in JSON: {"grid": {...}} or {"list": {"scenarios": [...]}})')
    .argument('<grid>', 'SolveBatchRequest JSON file')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'csv', 'jsonl']).default('table'))
    .option('--no-warm-start', 'solve every scenario cold (to measure what warm starts save)')
    .option('--no-progress', 'no progress bar on stderr')
    .option('--no-percentiles', 'leave the response-time percentiles out (empty p50_ms … p999_ms columns)');
  // The gRPC client (and without --server an in-process server) loads only when the command runs (sweep.run.ts).
  addRemoteOptions(cmd).action(async (file: string, o: SweepOptions) => (await import('./sweep.run.js')).runSweep(file, o));
}
