import { InvalidArgumentError, Option, type Command } from 'commander';
import { addRemoteOptions } from '../remote.js';
import type { SolveOptions } from './solve.run.js';
import { EXPORT_TARGETS, type ExportTarget } from '../../plan/export/targetNames.js';

export function backendOption(): Option {
  return new Option('--backend <backend>', 'solver backend').choices(['auto', 'cpu', 'gpu']);
}

/** Read by src/cli/nativePlan.ts before commander runs; declared here so that commander accepts it. */
export function verboseOption(): Option {
  return new Option('--verbose', 'show what the GPU driver stack (Dawn, Mesa, Vulkan loader) prints, on stderr');
}

export function registerSolve(program: Command): void {
  const cmd = program
    .command('solve')
    .description('solve a scenario for its optimal batching policy')
    .argument('<scenario>', 'scenario JSON file')
    .option('--json', 'print the result object as JSON')
    .option('--svg <file>', 'also draw the policy (action against queue length) as an SVG chart')
    .option('--no-percentiles', 'leave the response-time percentiles out (they can cost more than the solve)')
    .option(
      '--latency-chart <file>',
      'also draw p50–p99 bands and p99.9 against load (10–95 % of capacity B/l(B)) for the optimal policy at each λ, this λ\'s optimum held fixed, and greedy service, as an SVG chart (Poisson arrivals; solves once per λ, locally)',
    )
    .option('--chart-points <n>', `arrival rates on the --latency-chart (default 12; 2..200)`, chartPoints)
    .option(
      '--chart-settings <systems>',
      `also draw on the --latency-chart each system's exported setting (delay tuned for this λ, then held fixed), its percentiles simulated: a comma-separated list of ${EXPORT_TARGETS.join(', ')}, or all`,
      chartSettings,
    )
    .addOption(backendOption())
    .addOption(verboseOption());
  // The solver loads only when the command runs: `--help` and the other commands never pay for it.
  addRemoteOptions(cmd).action(async (file: string, o: SolveOptions) => (await import('./solve.run.js')).runSolve(file, o));
}

function chartSettings(v: string): ExportTarget[] {
  const names = v === 'all' ? [...EXPORT_TARGETS] : v.split(',').map((x) => x.trim());
  for (const n of names) if (!(EXPORT_TARGETS as readonly string[]).includes(n)) throw new InvalidArgumentError(`unknown serving system ${JSON.stringify(n)} (choose from ${EXPORT_TARGETS.join(', ')}, or all)`);
  return [...new Set(names)] as ExportTarget[];
}

function chartPoints(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 2 || n > 200) throw new InvalidArgumentError(`must be a whole number in 2..200 (got ${v})`);
  return n;
}
