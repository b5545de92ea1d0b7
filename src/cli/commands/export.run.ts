import { validateScenario } from '../../model/validate.js';
import { exportPolicy, type ExportResult } from '../../plan/export/exportPolicy.js';
import type { ExportTarget } from '../../plan/export/targetNames.js';
import { formatDuration } from '../../plan/units.js';
import { unrestrictedLines } from '../format.js';
import { readJsonFile, readTextFile } from '../io.js';
import { backendOf } from '../options.js';
import { statusLine } from '../progress.js';

/** `batchwise export`, loaded only when it runs (registration: export.ts). */
export interface ExportOptions {
  to: ExportTarget;
  requests?: number;
  tuningRequests?: number;
  seed?: number;
  modelName?: string;
  merge?: string;
  json?: boolean;
  backend?: string;
}

export async function runExport(file: string, o: ExportOptions): Promise<void> {
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
