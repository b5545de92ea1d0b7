import { InvalidArgumentError, type Command } from 'commander';
import { addConfigOptions } from './configOptions.js';
import type { SimulateOptions } from './simulate.run.js';

export const POLICY_HELP =
  'optimal | greedy | static:b | control-limit:M | table:a0,a1,… | triton:delay=2ms,preferred=8|16,max=32 | ' +
  'tf-serving:timeout=1ms,max=32,allowed=8|16|32 | aimd:slo=5ms,step=1,backoff=0.9 (see docs/simulator.md)';

export function positiveInt(what: string): (v: string) => number {
  return (v: string) => {
    const n = Number(v.replace(/_/g, ''));
    if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError(`${what} must be a non-negative integer (got ${v})`);
    return n;
  };
}

export function registerSimulate(program: Command): void {
  const cmd = program
    .command('simulate')
    .description('simulate a batching policy in continuous time (means with 95 % CIs, percentiles, power)')
    .argument('<scenario>', 'scenario JSON file')
    .option('--policy <policy>', POLICY_HELP, 'optimal')
    .option('--requests <n>', 'requests to measure (default 1000000; with --trace: the trace less warm-up)', positiveInt('--requests'))
    .option('--seed <s>', 'seed of the arrival and service streams', positiveInt('--seed'), 1)
    .option('--warmup <n>', 'requests served before measuring (default 1 % of the run, at least 1000)', positiveInt('--warmup'))
    .option('--trace <file>', 'replay arrival timestamps (seconds): one per line, or CSV with a timestamp column')
    .option('--trace-column <name>', 'CSV column of the timestamps', 'timestamp')
    .option('--json', 'print the result as JSON');
  // With --from-config: the setting a serving system runs, against the optimum (the round trip of `evaluate --from-config`).
  addConfigOptions(cmd)
    // The simulator loads only when the command runs (simulate.run.ts).
    .action(async (file: string, o: SimulateOptions) => (await import('./simulate.run.js')).runSimulate(file, o));
}
