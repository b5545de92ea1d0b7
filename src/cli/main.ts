import { Command, InvalidArgumentError, Option } from 'commander';
import { AbortError, LimitError, ScenarioError } from '../model/errors.js';
import type { Backend } from '../model/scenario.js';
import { validateScenario } from '../model/validate.js';
import { evaluateScenarioPolicy } from '../solve/evaluateScenario.js';
import { solveScenario } from '../solve/solveScenario.js';
import type { SolverProgress } from '../solve/types.js';
import { formatEvaluation, formatSolve } from './format.js';
import { readJsonFile } from './io.js';

/** Exit codes: 0 ok, 1 failure, 2 bad input. */
export const EXIT_BAD_INPUT = 2;

function backendOption(): Option {
  return new Option('--backend <backend>', 'solver backend').choices(['auto', 'cpu', 'gpu']);
}

function progressPrinter(enabled: boolean): ((p: SolverProgress) => void) | undefined {
  if (!enabled) return undefined;
  return (p) => {
    const gap = (p.upper - p.lower) / Math.abs(p.lower);
    process.stderr.write(`\r  S = ${p.maxQueue}  iteration ${p.iteration}  relative gap ${gap.toExponential(2)}   `);
  };
}

export function buildProgram(): Command {
  const program = new Command('batchwise')
    .description('Optimal batching policies for inference servers (average-cost SMDP, certified solves).')
    .showHelpAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

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

  program
    .command('evaluate')
    .description('evaluate a given policy exactly')
    .argument('<scenario>', 'scenario JSON file')
    .requiredOption('--policy <policy>', 'greedy | static:b | control-limit:M | table:a0,a1,…')
    .option('--json', 'print the evaluation as JSON')
    .action((file: string, o: { policy: string; json?: boolean }) => {
      const scenario = validateScenario(readJsonFile(file));
      const result = evaluateScenarioPolicy(scenario, o.policy);
      process.stdout.write(
        o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatEvaluation(result, scenario.params.maxBatchSize)}\n`,
      );
    });

  return program;
}

/** Runs the CLI; bad input ends with one line on stderr and exit code 2, never a stack trace. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (e) {
    if (e instanceof ScenarioError || e instanceof LimitError || e instanceof InvalidArgumentError) {
      process.stderr.write(`batchwise: error: ${e.message}\n`);
      return EXIT_BAD_INPUT;
    }
    if (e instanceof AbortError) {
      process.stderr.write(`batchwise: aborted: ${e.message}\n`);
      return 1;
    }
    if (isCommanderExit(e)) return e.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
    process.stderr.write(`batchwise: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    if (process.env.BATCHWISE_DEBUG) console.error(e);
    return 1;
  }
}

function isCommanderExit(e: unknown): e is { exitCode: number } {
  return typeof e === 'object' && e !== null && 'code' in e && String((e as { code: unknown }).code).startsWith('commander.');
}
