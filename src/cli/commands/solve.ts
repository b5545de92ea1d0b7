import { writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { Backend } from '../../model/scenario.js';
import { validateScenario } from '../../model/validate.js';
import { isClassesInput } from '../../model/classes/validate.js';
import { solveClassesScenario } from '../../solve/classes/solveClasses.js';
import { ScenarioError } from '../../model/errors.js';
import { formatClassesSolve } from '../classesFormat.js';
import { solveScenario } from '../../solve/solveScenario.js';
import type { SolverProgress } from '../../solve/types.js';
import { formatSolve } from '../format.js';
import { readJsonFile } from '../io.js';
import { addRemoteOptions, solveRemote, type RemoteOptions } from '../remote.js';
import { renderPolicySvg } from '../../plan/svg/policyChart.js';
import { statusLine, type StatusLine } from '../progress.js';

export function backendOption(): Option {
  return new Option('--backend <backend>', 'solver backend').choices(['auto', 'cpu', 'gpu']);
}

/** Read by src/cli/nativePlan.ts before commander runs; declared here so that commander accepts it. */
export function verboseOption(): Option {
  return new Option('--verbose', 'show what the GPU driver stack (Dawn, Mesa, Vulkan loader) prints, on stderr');
}

/** The solver's progress as the status line's step (redrawn every second even between reports). */
function progressStep(status: StatusLine): (p: SolverProgress) => void {
  return (p) => {
    const gap = (p.upper - p.lower) / Math.abs(p.lower);
    status.set(`S = ${p.maxQueue}, iteration ${p.iteration}, relative gap ${gap.toExponential(2)}`);
  };
}

export function registerSolve(program: Command): void {
  const cmd = program
    .command('solve')
    .description('solve a scenario for its optimal batching policy')
    .argument('<scenario>', 'scenario JSON file')
    .option('--json', 'print the result object as JSON')
    .option('--svg <file>', 'also draw the policy (action against queue length) as an SVG chart')
    .addOption(backendOption())
    .addOption(verboseOption());
  addRemoteOptions(cmd).action(async (file: string, o: { json?: boolean; backend?: string; svg?: string } & RemoteOptions) => {
    const json = readJsonFile(file);
    if (isClassesInput(json)) return solveClassesCommand(json, o);
    const scenario = validateScenario(json);
    const showProgress = !o.json && process.stderr.isTTY === true;
    const status = statusLine(showProgress && !o.server, 'solve');
    const result = o.server
      ? (await solveRemote({ ...o, server: o.server }, withBackend(json, o.backend), showProgress)).result
      : await solveScenario(scenario, {
          backend: o.backend ? (o.backend.toUpperCase() as Backend) : undefined,
          onProgress: showProgress ? progressStep(status) : undefined,
        }).finally(status.stop);
    if (showProgress && o.server) process.stderr.write('\r\x1b[K');
    if (o.svg) writeFileSync(o.svg, renderPolicySvg({ ...result.policy, maxBatchSize: scenario.params.maxBatchSize }));
    process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatSolve(result, scenario.params.maxBatchSize)}\n`);
  });
}

/** `--backend` for a remote solve: the scenario's own solver.backend, overridden. */
function withBackend(json: unknown, backend: string | undefined): unknown {
  if (!backend || typeof json !== 'object' || json === null) return json;
  const s = json as { solver?: object };
  return { ...s, solver: { ...s.solver, backend: backend.toUpperCase() } };
}

/** A scenario with `classes` (docs/model.md §10): solved here on the CPU (the gRPC service takes them in a later phase). */
async function solveClassesCommand(json: unknown, o: { json?: boolean; backend?: string; svg?: string } & RemoteOptions): Promise<void> {
  if (o.server) throw new ScenarioError('classes', 'multi-class scenarios are solved locally for now; drop --server');
  if (o.svg) throw new ScenarioError('classes', '--svg draws single-class policies only for now');
  const withBackendSet = withBackend(json, o.backend);
  const result = await solveClassesScenario(withBackendSet);
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatClassesSolve(result)}\n`);
}
