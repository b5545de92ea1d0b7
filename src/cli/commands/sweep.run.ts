import { InvalidArgumentError } from 'commander';
import { ScenarioError } from '../../model/errors.js';
import { expandBatch } from '../../service/batch/expand.js';
import type { BatchwiseClient } from '../../service/client.js';
import { solveBatchJsonNames } from '../../service/convert/jsonNames.js';
import type { ScenarioResult, SolveBatchRequest } from '../../service/messages.js';
import { readJsonFile } from '../io.js';
import { progressBar } from '../progress.js';
import { cancelOnSigint, connect, type RemoteOptions } from '../remote.js';
import { formatCsv, formatJsonLine, formatTable, summarize } from '../sweepFormat.js';

/** `batchwise sweep`, loaded only when it runs (registration: sweep.ts). */
export interface SweepOptions extends RemoteOptions {
  format: 'table' | 'csv' | 'jsonl';
  warmStart: boolean;
  progress: boolean;
  /** False with --no-percentiles. */
  percentiles: boolean;
}

export async function runSweep(file: string, o: SweepOptions): Promise<void> {
  const request = readRequest(file);
  if (!o.warmStart) request.disableWarmStart = true;
  if (o.percentiles === false) request.skipPercentiles = true;
  const total = countScenarios(request);
  const local = o.server ? undefined : await startLocalServer();
  const client = await connect({ ...o, server: o.server ?? local!.address });
  const sig = cancelOnSigint();
  try {
    const results = await collect(client, request, total, o, sig.signal);
    if (o.format === 'csv') process.stdout.write(formatCsv(results));
    if (o.format === 'table') process.stdout.write(formatTable(results));
    const s = summarize(results);
    process.stderr.write(
      `${s.solved} solved (${s.cached} from cache, ${s.warmStarted} warm-started, ${s.iterations} solver iterations), ${s.errors} errors\n`,
    );
  } finally {
    sig.dispose();
    client.close();
    await local?.shutdown({ graceMs: 0 });
  }
}

async function collect(client: BatchwiseClient, request: SolveBatchRequest, total: number, o: SweepOptions, signal: AbortSignal): Promise<ScenarioResult[]> {
  const bar = progressBar(o.progress && process.stderr.isTTY === true, 'sweep');
  bar.update(0, total, `0 of ${total}`);
  const results: ScenarioResult[] = [];
  try {
    for await (const r of client.solveBatch(request, { signal })) {
      results.push(r);
      // JSON lines stream as results arrive; table and CSV are printed sorted at the end.
      if (o.format === 'jsonl') process.stdout.write(formatJsonLine(r));
      bar.update(results.length, total, `${results.length} of ${total}`);
    }
  } finally {
    bar.stop();
  }
  return results;
}

/** Without --server the sweep runs on an in-process server (loaded only then: it brings gRPC, pino, the GPU stack). */
async function startLocalServer() {
  const [{ BatchwiseServer }, { pino }] = await Promise.all([import('../../service/server.js'), import('pino')]);
  return BatchwiseServer.start({ port: 0, logger: pino({ level: 'silent' }), processMetrics: false });
}

function readRequest(file: string): SolveBatchRequest {
  const json = readJsonFile(file);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ScenarioError(file, 'must hold a JSON object with "grid" or "list"');
  const o = solveBatchJsonNames(json);
  // gRPC would drop an unknown key silently (a misspelt "arrivalRates" sweeps nothing): refuse it, as scenario files do.
  onlyKnown(o, ['grid', 'list', 'disableWarmStart'], `${file}: `);
  const nested = o as { grid?: unknown; list?: unknown };
  if (typeof nested.grid === 'object' && nested.grid !== null) onlyKnown(nested.grid, ['base', 'arrivalRate', 'maxBatchSize', 'latencyWeight', 'powerWeight'], `${file}: grid.`);
  if (typeof nested.list === 'object' && nested.list !== null) onlyKnown(nested.list, ['scenarios'], `${file}: list.`);
  return o;
}

function onlyKnown(o: object, known: readonly string[], where: string): void {
  const unknown = Object.keys(o).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new ScenarioError(`${where}${unknown[0]}`, `is not a known field (expected ${known.join(', ')})`);
}

/** The number of scenarios, for the progress bar (the server checks the request itself). */
function countScenarios(request: SolveBatchRequest): number {
  try {
    return expandBatch(request, Number.MAX_SAFE_INTEGER).length;
  } catch (e) {
    if (e instanceof ScenarioError) throw new InvalidArgumentError(`${e.field}: ${e.reason}`);
    throw e;
  }
}
