import { Option, type Command } from 'commander';
import type { Backend } from '../../model/scenario.js';
import { validateScenario } from '../../model/validate.js';
import { solveScenario } from '../../solve/solveScenario.js';
import type { SolverProgress } from '../../solve/types.js';
import { formatSolve } from '../format.js';
import { readJsonFile } from '../io.js';

export function backendOption(): Option {
  return new Option('--backend <backend>', 'solver backend').choices(['auto', 'cpu', 'gpu']);
}

function progressPrinter(enabled: boolean): ((p: SolverProgress) => void) | undefined {
  if (!enabled) return undefined;
  return (p) => {
    const gap = (p.upper - p.lower) / Math.abs(p.lower);
    process.stderr.write(`\r  S = ${p.maxQueue}  iteration ${p.iteration}  relative gap ${gap.toExponential(2)}   `);
  };
}

export function registerSolve(program: Command): void {
  program
    .command('solve')
    .description('solve a scenario for its optimal batching policy')
    .argument('<scenario>', 'scenario JSON file')
    .option('--json', 'print the result object as JSON')
    .addOption(backendOption())
    .action(async (file: string, o: { json?: boolean; backend?: string }) => {
      const scenario = validateScenario(readJsonFile(file));
      const showProgress = !o.json && process.stderr.isTTY === true;
      const result = await solveScenario(scenario, {
        backend: o.backend ? (o.backend.toUpperCase() as Backend) : undefined,
        onProgress: progressPrinter(showProgress),
      });
      if (showProgress) process.stderr.write('\r\x1b[K');
      process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatSolve(result, scenario.params.maxBatchSize)}\n`);
    });
}
