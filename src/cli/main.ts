import { Command, InvalidArgumentError } from 'commander';
import { AbortError, LimitError, ScenarioError } from '../model/errors.js';
import { registerEvaluate } from './commands/evaluate.js';
import { registerSolve } from './commands/solve.js';
import { registerServe } from './commands/serve.js';
import { registerSweep } from './commands/sweep.js';
import { registerSimulate } from './commands/simulate.js';
import { registerCompare } from './commands/compare.js';
import { registerPlan } from './commands/plan.js';
import { registerFrontier } from './commands/frontier.js';
import { registerFleet } from './commands/fleet.js';
import { registerExport } from './commands/export.js';
import { registerTrain } from './commands/train.js';
import { registerWorker } from './commands/worker.js';
import { completionScript } from './completion.js';
import { packageVersion } from './version.js';

/** Exit codes: 0 ok, 1 failure, 2 bad input. */
export const EXIT_BAD_INPUT = 2;

/** Every subcommand lives in src/cli/commands/ and registers itself here, one line each. */
export function buildProgram(): Command {
  const program = new Command('batchwise')
    .description('Optimal batching policies for inference servers (average-cost SMDP, certified solves).')
    .showHelpAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    // Options belong to the (sub)command they follow: `fleet simulate --requests` must not be
    // taken by `fleet`'s own --requests (commander splits options at the root otherwise).
    .enablePositionalOptions()
    // Set before the subcommands exist: commander copies it into each one, so their argument
    // errors also reach main() (exit code 2) instead of ending the process with code 1.
    .exitOverride()
    .version(packageVersion(), '-V, --version', 'print the version')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  batchwise solve examples/scenario.json            the optimal policy, certified',
        '  batchwise plan examples/scenario.json --latency-target 10ms',
        '  batchwise export examples/scenario.json --to triton',
        '  batchwise serve --port 50051                       the gRPC service',
        '  batchwise completion bash >> ~/.bashrc             shell completion (bash, zsh)',
        '',
        'Each command has its own --help. Scenario files: docs/scenario.schema.json.',
      ].join('\n'),
    );
  registerSolve(program);
  registerEvaluate(program);
  registerServe(program);
  registerSweep(program);
  registerSimulate(program);
  registerCompare(program);
  registerPlan(program);
  registerFrontier(program);
  registerFleet(program);
  registerExport(program);
  registerTrain(program);
  registerWorker(program);
  program
    .command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell !== 'bash' && shell !== 'zsh') throw new InvalidArgumentError(`completion: expected bash or zsh (got ${JSON.stringify(shell)})`);
      process.stdout.write(completionScript(program, shell));
    });
  return program;
}

/** Errors that are the user's input: one line on stderr and exit code 2, never a stack trace. */
export function isInputError(e: unknown): e is Error {
  return e instanceof ScenarioError || e instanceof LimitError || e instanceof InvalidArgumentError;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (e) {
    if (isInputError(e)) {
      process.stderr.write(`batchwise: error: ${e.message}\n`);
      return EXIT_BAD_INPUT;
    }
    if (e instanceof AbortError) {
      process.stderr.write(`batchwise: aborted: ${e.message}\n`);
      return 1;
    }
    if (isCommanderExit(e)) return e.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
    if (isRemoteError(e)) {
      // A gRPC status from --server: say what the server (or the connection) said, no stack.
      process.stderr.write(`batchwise: server: ${e.details || e.message}\n`);
      return e.code === 3 ? EXIT_BAD_INPUT : 1;
    }
    process.stderr.write(`batchwise: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    if (process.env.BATCHWISE_DEBUG) console.error(e);
    return 1;
  }
}

function isCommanderExit(e: unknown): e is { exitCode: number } {
  return typeof e === 'object' && e !== null && 'code' in e && String((e as { code: unknown }).code).startsWith('commander.');
}

/** A grpc-js ServiceError (numeric status code and details), as thrown by the remote client. */
function isRemoteError(e: unknown): e is Error & { code: number; details: string } {
  return e instanceof Error && typeof (e as { code?: unknown }).code === 'number' && typeof (e as { details?: unknown }).details === 'string';
}
