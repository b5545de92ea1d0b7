import { readFileSync } from 'node:fs';
import { ScenarioError } from '../../model/errors.js';
import type { ValidatedScenario } from '../../model/scenario.js';
import { validateScenario } from '../../model/validate.js';
import type { Policy } from '../../policy/policy.js';
import { buildSimPolicy, parseSimPolicySpec } from '../../sim/policySpec.js';
import type { SimulationResult } from '../../sim/result.js';
import { simulate } from '../../sim/simulate.js';
import { parseTrace } from '../../sim/trace.js';
import { solveScenario } from '../../solve/solveScenario.js';
import type { ExportTarget } from '../../plan/export/targetNames.js';
import { readJsonFile } from '../io.js';
import { progressBar } from '../progress.js';
import { policyOf } from '../../solve/result.js';

/** `batchwise simulate`, loaded only when it runs (registration: simulate.ts). */
export interface SimulateOptions {
  policy: string;
  requests?: number;
  seed: number;
  warmup?: number;
  trace?: string;
  traceColumn: string;
  json?: boolean;
  fromConfig?: string;
  to?: ExportTarget;
  modelName?: string;
}

/** The solver's optimal policy of a scenario, as a table (beyond it: serve min(s, B)); per phase for bursty scenarios (docs/model.md §7). */
export async function optimalPolicy(scenario: ValidatedScenario, signal?: AbortSignal): Promise<Policy> {
  const r = await solveScenario(scenario, { signal, percentiles: false });
  return policyOf(r.policy, scenario.params.maxBatchSize);
}

const ms = (s: number): string => `${(s * 1e3).toFixed(4)} ms`;
const pm = (h: number | null, f: (x: number) => string): string => (h === null ? '' : ` ± ${f(h)}`);

export function formatSimulation(r: SimulationResult): string {
  const c = r.confidence;
  const p = r.percentiles;
  const hist = r.batchSizeHistogram
    .map((n, b) => ({ b, share: n / r.batches }))
    .filter((x) => x.b > 0 && x.share > 0)
    .map((x) => `${x.b}:${(x.share * 100).toFixed(x.share < 0.001 ? 3 : 1)}%`);
  const source = r.arrivals === 'poisson' ? `Poisson arrivals, seed ${r.seed}` : 'trace arrivals';
  return [
    `Policy: ${r.policy}`,
    `Simulated ${r.requests.toLocaleString('en-US')} requests (${source}; ${r.warmupRequests.toLocaleString('en-US')} warm-up), ` +
      `${r.batches.toLocaleString('en-US')} batches, ${r.simulatedSeconds.toPrecision(6)} s of model time` +
      (r.stop === 'arrivals-exhausted' ? ' (the trace ended first)' : ''),
    `  average cost        ${r.averageCost.toPrecision(8)}${pm(c.averageCost, (h) => h.toPrecision(3))}  (95 % CI, ${c.batches} batch means)`,
    `  mean response time  ${ms(r.meanResponseTime)}${pm(c.meanResponseTime, ms)}`,
    `  percentiles         p50 ${ms(p.p50)}  p90 ${ms(p.p90)}  p95 ${ms(p.p95)}  p99 ${ms(p.p99)}  p99.9 ${ms(p.p999)}  max ${ms(p.max)}`,
    `  mean power          ${r.meanPower.toFixed(4)} W${pm(c.meanPower, (h) => `${h.toFixed(4)} W`)}`,
    `  throughput          ${r.throughput.toFixed(2)} /s   utilisation ${(r.utilization * 100).toFixed(2)} %   mean batch ${r.meanBatchSize.toFixed(3)}`,
    `  batch sizes         ${hist.join('  ')}`,
  ].join('\n');
}

export async function runSimulate(file: string, o: SimulateOptions): Promise<void> {
  if (o.fromConfig !== undefined) {
    // A deployed setting simulated against the optimum: the same round trip as evaluate --from-config.
    if (o.policy !== 'optimal') throw new ScenarioError('--policy', 'give either --policy or --from-config, not both');
    if (o.trace !== undefined) throw new ScenarioError('--trace', '--from-config simulates Poisson or MMPP arrivals from the scenario, not a trace');
    const { runEvaluate } = await import('./evaluate.run.js');
    return runEvaluate(file, { fromConfig: o.fromConfig, to: o.to, requests: o.requests, seed: o.seed, modelName: o.modelName, json: o.json });
  }
  const scenario = validateScenario(readJsonFile(file));
  const spec = parseSimPolicySpec(o.policy, scenario.params.maxBatchSize, '--policy');
  const optimal = spec.kind === 'optimal' ? await optimalPolicy(scenario) : undefined;
  const trace = o.trace === undefined ? undefined : readTrace(o.trace, o.traceColumn);
  const bar = progressBar(!o.json && process.stderr.isTTY === true, 'simulating');
  const result = simulate(scenario.params, buildSimPolicy(spec, scenario.params, optimal), {
    requests: o.requests === 0 ? undefined : o.requests,
    seed: o.seed,
    warmup: o.warmup,
    trace,
    onProgress: (done, total) => bar.update(done, total),
  });
  bar.stop();
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatSimulation(result)}\n`);
}

function readTrace(path: string, column: string): Float64Array {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ScenarioError(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  return parseTrace(text, { source: path, column: column === 'timestamp' ? undefined : column });
}
