import type { Command } from 'commander';
import { validateScenario } from '../../model/validate.js';
import { evaluateScenarioPolicy } from '../../solve/evaluateScenario.js';
import { formatEvaluation } from '../format.js';
import { readJsonFile } from '../io.js';

export function registerEvaluate(program: Command): void {
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
}
