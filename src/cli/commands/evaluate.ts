import type { Command } from 'commander';
import { validateScenario } from '../../model/validate.js';
import { evaluateScenarioPolicy } from '../../solve/evaluateScenario.js';
import { formatEvaluation } from '../format.js';
import { readJsonFile } from '../io.js';
import { addRemoteOptions, evaluateRemote, type RemoteOptions } from '../remote.js';

export function registerEvaluate(program: Command): void {
  const cmd = program
    .command('evaluate')
    .description('evaluate a given policy exactly')
    .argument('<scenario>', 'scenario JSON file')
    .requiredOption('--policy <policy>', 'greedy | static:b | control-limit:M | table:a0,a1,…')
    .option('--json', 'print the evaluation as JSON');
  addRemoteOptions(cmd).action(async (file: string, o: { policy: string; json?: boolean } & RemoteOptions) => {
    const json = readJsonFile(file);
    const scenario = validateScenario(json);
    const result = o.server
      ? await evaluateRemote({ ...o, server: o.server }, json, o.policy)
      : evaluateScenarioPolicy(scenario, o.policy);
    process.stdout.write(
      o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatEvaluation(result, scenario.params.maxBatchSize)}\n`,
    );
  });
}
