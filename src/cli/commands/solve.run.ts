import { writeFileSync } from 'node:fs';
import type { Backend, ValidatedScenario } from '../../model/scenario.js';
import type { ExportTarget } from '../../plan/export/targetNames.js';
import { validateScenario } from '../../model/validate.js';
import { isClassesInput, validateClassesScenario } from '../../model/classes/validate.js';
import { ScenarioError } from '../../model/errors.js';
import { solveScenario } from '../../solve/solveScenario.js';
import type { SolverProgress } from '../../solve/types.js';
import { formatSolve } from '../format.js';
import { readJsonFile } from '../io.js';
import { solveClassesRemote, solveRemote, type RemoteOptions } from '../remote.js';
import { statusLine, type StatusLine } from '../progress.js';

/** `batchwise solve`, loaded only when it runs (registration: solve.ts). */
export type SolveOptions = { json?: boolean; backend?: string; svg?: string; percentiles?: boolean; latencyChart?: string; chartPoints?: number; chartSettings?: ExportTarget[] } & RemoteOptions;

/** The solver's progress as the status line's step (redrawn every second even between reports). */
function progressStep(status: StatusLine): (p: SolverProgress) => void {
  return (p) => {
    const gap = (p.upper - p.lower) / Math.abs(p.lower);
    status.set(`S = ${p.maxQueue}, iteration ${p.iteration}, relative gap ${gap.toExponential(2)}`);
  };
}

export async function runSolve(file: string, o: SolveOptions): Promise<void> {
  if (o.chartSettings && !o.latencyChart) throw new ScenarioError('--chart-settings', 'draws on the latency chart: give --latency-chart <file> too');
  const json = readJsonFile(file);
  if (isClassesInput(json)) return solveClassesCommand(json, o);
  const scenario = validateScenario(json);
  const showProgress = !o.json && process.stderr.isTTY === true;
  const status = statusLine(showProgress && !o.server, 'solve');
  const result = o.server
    ? (await solveRemote({ ...o, server: o.server }, withBackend(json, o.backend), showProgress, o.percentiles === false)).result
    : await solveScenario(scenario, {
        backend: o.backend ? (o.backend.toUpperCase() as Backend) : undefined,
        onProgress: showProgress ? progressStep(status) : undefined,
        percentiles: o.percentiles !== false,
      }).finally(status.stop);
  if (showProgress && o.server) process.stderr.write('\r\x1b[K');
  // Loaded only with --svg: the chart code is under src/plan, which a plain solve does not need.
  if (o.svg) writeFileSync(o.svg, (await import('../../plan/svg/policyChart.js')).renderPolicySvg({ ...result.policy, maxBatchSize: scenario.params.maxBatchSize }));
  if (o.latencyChart) await writeLatencyChart(o.latencyChart, scenario, o, showProgress);
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatSolve(result, scenario.params.maxBatchSize)}\n`);
}

/** --latency-chart: one solve per λ, here even with --server (the chart is drawn here). Loaded only then. */
async function writeLatencyChart(file: string, scenario: ValidatedScenario, o: SolveOptions, showProgress: boolean): Promise<void> {
  const [{ latencyAgainstLoad, loadChartTitle }, { renderLatencyBandsSvg }] = await Promise.all([import('../../plan/loadLatency.js'), import('../../plan/svg/latencyBands.js')]);
  const status = statusLine(showProgress, 'latency chart');
  const load = await latencyAgainstLoad(scenario, { points: o.chartPoints, settings: o.chartSettings, backend: o.backend ? (o.backend.toUpperCase() as Backend) : undefined, onProgress: status.set }).finally(status.stop);
  const missing = load.series.flatMap((s) => s.unavailable.map((u) => `${s.label} at λ = ${u.arrivalRate.toFixed(1)} /s: ${u.reason}`));
  // A chart with holes says so: the rates left out and why, on stderr.
  for (const m of missing) process.stderr.write(`latency chart: no percentiles for ${m}\n`);
  const drawn = load.series.filter((s) => s.points.length > 0);
  if (drawn.length === 0) throw new ScenarioError('--latency-chart', `no percentiles could be computed (${load.series[0].unavailable[0]?.reason ?? 'none'})`);
  writeFileSync(file, renderLatencyBandsSvg(drawn, loadChartTitle(scenario.params, load)));
}

/** `--backend` for a remote solve: the scenario's own solver.backend, overridden. */
function withBackend(json: unknown, backend: string | undefined): unknown {
  if (!backend || typeof json !== 'object' || json === null) return json;
  const s = json as { solver?: object };
  return { ...s, solver: { ...s.solver, backend: backend.toUpperCase() } };
}

/** A scenario with `classes` (docs/model.md §10): solved here on the CPU, or by the server with --server. */
async function solveClassesCommand(json: unknown, o: SolveOptions): Promise<void> {
  if (o.latencyChart) throw new ScenarioError('classes', '--latency-chart draws single-class scenarios only for now');
  // Refused before any solve: the chart is of two classes' (n_1, n_2) plane.
  if (o.svg && validateClassesScenario(json).params.classes.length !== 2) throw new ScenarioError('--svg', 'draws the switching curve of two classes; this scenario has another number');
  const withBackendSet = withBackend(json, o.backend);
  const showProgress = !o.json && process.stderr.isTTY === true;
  // Loaded only for a multi-class scenario: a single-class solve does not need the joint model.
  const { formatClassesSolve } = await import('../classesFormat.js');
  const result = o.server
    ? (await solveClassesRemote({ ...o, server: o.server }, withBackendSet, showProgress)).result
    : await (await import('../../solve/classes/solveClasses.js')).solveClassesScenario(withBackendSet);
  if (showProgress && o.server) process.stderr.write('\r\x1b[K');
  if (o.svg) {
    const { renderSwitchingSvg } = await import('../../plan/svg/switchingChart.js');
    writeFileSync(o.svg, renderSwitchingSvg(result));
  }
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatClassesSolve(result)}\n`);
}
