import { Option, type Command } from 'commander';
import { validateScenario } from '../../model/validate.js';
import { exportPolicy, type ExportResult } from '../../plan/export/exportPolicy.js';
import type { SideBySide } from '../../plan/export/sideBySide.js';
import { EXPORT_TARGETS, type ExportTarget } from '../../plan/export/targets.js';
import { formatDuration } from '../../plan/units.js';
import { readJsonFile, readTextFile } from '../io.js';
import { backendOf } from './plan.js';
import { backendOption, verboseOption } from './solve.js';
import { positiveInt } from './simulate.js';
import { statusLine } from '../progress.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description("translate the optimal policy into a serving system's batching settings, delay tuned in simulation")
    .argument('<scenario>', 'scenario JSON file')
    .addOption(new Option('--to <system>', 'target serving system').choices([...EXPORT_TARGETS]).makeOptionMandatory())
    .option('--requests <n>', 'requests of the final simulations (default 1000000)', positiveInt('--requests'))
    .option('--tuning-requests <n>', 'requests per simulation while tuning the delay (default 200000)', positiveInt('--tuning-requests'))
    .option('--seed <n>', 'seed of the final simulations; tuning uses seed + 1 (default 1)', positiveInt('--seed'))
    .option('--model-name <name>', 'model name used in the configuration (default "model"); with --merge, the TorchServe model or Ray deployment to update')
    .option(
      '--merge <file>',
      "write the setting into this existing configuration of --to (config.pbtxt, batching_parameters.txt, config.properties / model-config.yaml, Ray Serve config YAML): only the batching fields change, the rest is kept byte for byte; what changed on stderr",
    )
    .option('--json', 'print the result as JSON')
    .addOption(backendOption())
    .addOption(verboseOption())
    .action(
      async (
        file: string,
        o: { to: ExportTarget; requests?: number; tuningRequests?: number; seed?: number; modelName?: string; merge?: string; json?: boolean; backend?: string },
      ) => {
        const scenario = validateScenario(readJsonFile(file));
        const merge = o.merge === undefined ? undefined : { text: readTextFile(o.merge), file: o.merge };
        const status = statusLine(process.stderr.isTTY === true, `export --to ${o.to}`);
        const r = await exportPolicy(scenario, o.to, {
          onProgress: status.set,
          requests: o.requests,
          tuningRequests: o.tuningRequests,
          seed: o.seed,
          modelName: o.modelName,
          backend: backendOf(o),
          merge,
        }).finally(status.stop);
        if (o.json) {
          process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
          return;
        }
        // The configuration alone on stdout (ready to redirect into a file); the report on stderr.
        process.stdout.write(r.merged?.text ?? r.config);
        process.stderr.write(`${[...summary(r), ...(r.merged ? [`merged into ${o.merge}:`, ...r.merged.notes.map((n) => `  ${n}`)] : [])].join('\n')}\n`);
      },
    );
}

/** With restrictions: the unrestricted optimum, what the restriction costs exactly, and the setting's paired gap to it (export and evaluate --from-config). */
export function unrestrictedLines(u: SideBySide['unrestricted'], pm: (h: number | null) => string): string[] {
  if (!u) return [];
  const g = u.gap;
  return [
    `  unrestricted optimum (control limit ${u.controlLimit}): exact cost ${u.averageCost.toPrecision(8)}; the restriction costs ${((100 * u.restrictionCost) / u.averageCost).toFixed(3)} % (exact)`,
    `  gap to the unrestricted optimum: ${(g.relative * 100).toFixed(3)} %${g.halfWidth === null ? '' : ` ± ${((g.halfWidth / u.averageCost) * 100).toFixed(3)} %`}` +
      ` (cost ${g.difference.toPrecision(4)}${pm(g.halfWidth)}, paired on the same arrivals)`,
  ];
}

function summary(r: ExportResult): string[] {
  const pm = (h: number | null): string => (h === null ? '' : ` ± ${h.toPrecision(3)}`);
  const s = r.setting;
  return [
    `${r.label}: max batch ${s.maxBatchSize}, delay ${formatDuration(s.delay)}` +
      (s.preferredBatchSizes.length > 0 ? `, preferred sizes ${s.preferredBatchSizes[0]}–${s.preferredBatchSizes[s.preferredBatchSizes.length - 1]}` : '') +
      (s.maxOngoingRequests === undefined ? '' : `, max_ongoing_requests ${s.maxOngoingRequests}`) +
      (s.allowedBatchSizes && s.allowedBatchSizes.length > 0 ? `, allowed sizes ${s.allowedBatchSizes.join(', ')}` : ''),
    `  ${r.unrestricted ? 'restricted optimum' : 'optimal policy'} (control limit ${r.optimal.controlLimit}${r.optimal.isControlLimit ? ', pure' : ''}): exact cost ${r.optimal.averageCost.toPrecision(8)}, ` +
      `simulated ${r.optimal.simulated.averageCost.toPrecision(8)}${pm(r.optimal.simulated.halfWidth)}`,
    `  exported setting: simulated cost ${r.exported.averageCost.toPrecision(8)}${pm(r.exported.halfWidth)}, ` +
      `E[R] ${formatDuration(r.exported.meanResponseTime)}, p99 ${formatDuration(r.exported.p99)}, E[P] ${r.exported.meanPower.toFixed(3)} W`,
    `  gap to the optimum: ${(r.gap.relative * 100).toFixed(3)} %${r.gap.halfWidth === null ? '' : ` ± ${((r.gap.halfWidth / r.optimal.averageCost) * 100).toFixed(3)} %`}` +
      ` (cost ${r.gap.difference.toPrecision(4)}${pm(r.gap.halfWidth)} over the ${r.unrestricted ? 'restricted optimum' : 'optimal policy'} on the same arrivals)`,
    ...unrestrictedLines(r.unrestricted, pm),
    ...r.assumptions.map((a) => `  assumes ${a}`),
    `  ${r.trials.length} delays simulated while tuning (${r.exported.requests.toLocaleString('en-US')} requests in the final runs, seed ${r.exported.seed})`,
  ];
}
