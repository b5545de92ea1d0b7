import { readFileSync } from 'node:fs';
import { ScenarioError } from '../../model/errors.js';
import { validateScenario } from '../../model/validate.js';
import type { ConfigEvaluation } from '../../plan/export/evaluateConfig.js';
import { EXPORT_TARGETS, type ExportTarget } from '../../plan/export/targetNames.js';
import { formatDuration } from '../../plan/units.js';
import { evaluateScenarioPolicy } from '../../solve/evaluateScenario.js';
import { formatEvaluation, unrestrictedLines } from '../format.js';
import { readJsonFile } from '../io.js';
import { evaluateRemote, type RemoteOptions } from '../remote.js';

/** `batchwise evaluate`, loaded only when it runs (registration: evaluate.ts). */
export interface EvaluateOptions extends RemoteOptions {
  policy?: string;
  fromConfig?: string;
  to?: ExportTarget;
  requests?: number;
  seed?: number;
  modelName?: string;
  json?: boolean;
  /** False with --no-percentiles. */
  percentiles?: boolean;
}

export async function runEvaluate(file: string, o: EvaluateOptions): Promise<void> {
  const json = readJsonFile(file);
  const scenario = validateScenario(json);
  if (o.fromConfig !== undefined) {
    if (o.policy !== undefined) throw new ScenarioError('--policy', 'give either --policy or --from-config, not both');
    if (o.to === undefined) throw new ScenarioError('--to', `--from-config needs --to (${EXPORT_TARGETS.join(', ')})`);
    if (o.server) throw new ScenarioError('--server', '--from-config runs locally');
    const text = readFileSync(o.fromConfig, 'utf8');
    // Loaded here: the config readers bring a YAML parser that other commands do not need.
    const { evaluateConfig } = await import('../../plan/export/evaluateConfig.js');
    const r = await evaluateConfig(scenario, o.to, text, o.fromConfig, { requests: o.requests, seed: o.seed, modelName: o.modelName });
    process.stdout.write(o.json ? `${JSON.stringify(r, null, 2)}\n` : `${configSummary(r).join('\n')}\n`);
    return;
  }
  if (o.policy === undefined) throw new ScenarioError('--policy', 'is required (or --from-config with --to)');
  const result = o.server ? await evaluateRemote({ ...o, server: o.server }, json, o.policy, o.percentiles === false)
    : evaluateScenarioPolicy(scenario, o.policy, { percentiles: o.percentiles !== false });
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatEvaluation(result, scenario.params.maxBatchSize)}\n`);
}

function configSummary(r: ConfigEvaluation): string[] {
  const pm = (h: number | null): string => (h === null ? '' : ` ± ${h.toPrecision(3)}`);
  return [
    `${r.label}, simulated as ${r.policy}`,
    ...r.notes.map((n) => `  note: ${n}`),
    `  setting: simulated cost ${r.exported.averageCost.toPrecision(8)}${pm(r.exported.halfWidth)}, E[R] ${formatDuration(r.exported.meanResponseTime)}, ` +
      `p99 ${formatDuration(r.exported.p99)}, E[P] ${r.exported.meanPower.toFixed(3)} W`,
    ...(r.restriction === undefined ? [] : [`  restriction: ${r.restriction}`]),
    `  ${r.unrestricted ? 'restricted optimum' : 'optimal policy'} (control limit ${r.optimal.controlLimit}): exact cost ${r.optimal.averageCost.toPrecision(8)}, simulated ${r.optimal.simulated.averageCost.toPrecision(8)}${pm(r.optimal.simulated.halfWidth)}`,
    `  gap to the ${r.unrestricted ? 'restricted ' : ''}optimum: ${(r.gap.relative * 100).toFixed(3)} %${r.gap.halfWidth === null ? '' : ` ± ${((r.gap.halfWidth / r.optimal.averageCost) * 100).toFixed(3)} %`}` +
      ` (paired, same arrivals; ${r.exported.requests.toLocaleString('en-US')} requests, seed ${r.exported.seed})`,
    ...unrestrictedLines(r.unrestricted, pm),
  ];
}
