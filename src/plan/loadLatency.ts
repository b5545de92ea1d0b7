import { ScenarioError, throwIfAborted } from '../model/errors.js';
import type { Backend, ModelParams, ValidatedScenario } from '../model/scenario.js';
import { latencyOfEvaluation } from '../latency/summary.js';
import type { LatencyOutcome } from '../latency/summary.js';
import { evaluatePolicy } from '../policy/evaluate.js';
import { greedyPolicy, summarizePolicy, type Policy } from '../policy/policy.js';
import { policyOf } from '../solve/result.js';
import { solveScenario } from '../solve/solveScenario.js';
import { asValidated } from './frontier.js';
import { serviceLabel, weightsLabel } from './scenarioLabel.js';
import { exportPolicy } from './export/exportPolicy.js';
import { TARGETS, type BatchingSetting, type ExportTarget } from './export/targets.js';
import type { SimPolicy } from '../sim/policies/types.js';
import { CONFIDENCE_LEVEL, type SimulationResult } from '../sim/result.js';
import { simulate } from '../sim/simulate.js';
import { meanHalfWidth } from '../sim/stats.js';

/**
 * Response-time percentiles against load: for arrival rates spread over a share of the capacity
 * B/l(B), the exact percentiles (docs/model.md §9) of the optimal policy solved at each rate, of
 * the nominal rate's optimum held fixed (what a setting tuned once and never retuned does as the
 * load drifts), and of greedy service (a serving system's zero-delay setting: serve whatever is
 * waiting). With `settings`, also each serving system's exported setting (exportPolicy: its delay
 * tuned in simulation at the nominal rate) held fixed as the load moves: those are timeout
 * policies, not queue-length policies, so they have no exact law here; their percentiles come
 * from independent simulations, with a 95 % interval on p99.
 */
export interface LoadPoint {
  /** Requests/s. */
  readonly arrivalRate: number;
  readonly controlLimit: number;
  /** Seconds. */
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly p999: number;
  /** Simulated series only: the 95 % half-width of p99 over the replications, seconds. */
  readonly p99HalfWidth?: number;
}

export interface LoadSeries {
  readonly label: string;
  readonly kind: 'optimal' | 'fixed' | 'greedy' | 'setting';
  /** `exact` (docs/model.md §9) or `simulated` (an exported setting). */
  readonly method: 'exact' | 'simulated';
  /** Setting series only: the serving system and the setting exported for the nominal rate. */
  readonly setting?: BatchingSetting;
  readonly points: LoadPoint[];
  /** Rates at which the percentiles could not be computed, and why. */
  readonly unavailable: { readonly arrivalRate: number; readonly reason: string }[];
}

export interface LoadLatency {
  readonly series: LoadSeries[];
  /** B/l(B), requests/s. */
  readonly capacity: number;
  /** The scenario's own arrival rate. */
  readonly nominalRate: number;
  readonly rates: number[];
}

export interface LoadLatencyOptions {
  /** Number of arrival rates (default 12). */
  readonly points?: number;
  /** Shares of the capacity of the first and last rate (default 0.1 and 0.95). */
  readonly from?: number;
  readonly to?: number;
  readonly signal?: AbortSignal;
  readonly backend?: Backend;
  readonly onProgress?: (step: string) => void;
  /** Serving systems whose exported setting is drawn too (simulated). */
  readonly settings?: readonly ExportTarget[];
  /** The simulations of the settings: independent replications per rate, requests each, first seed. */
  readonly simulation?: { readonly replications?: number; readonly requests?: number; readonly seed?: number };
}

export const DEFAULT_LOAD_POINTS = 12;
/** Replications × requests per rate of a setting: p99 to about ±1 % at moderate load. */
export const SETTING_REPLICATIONS = 8;
export const SETTING_REQUESTS = 50_000;

export function capacityOf(p: ModelParams): number {
  return p.maxBatchSize / p.meanService[p.maxBatchSize];
}

/** Evenly spaced rates from `from`·capacity to `to`·capacity. */
export function loadRates(p: ModelParams, points: number, from: number, to: number): number[] {
  if (!(Number.isInteger(points) && points >= 2)) throw new ScenarioError('points', `must be a whole number ≥ 2 (got ${points})`);
  if (!(from > 0 && to > from && to < 1)) throw new ScenarioError('load range', `must satisfy 0 < from < to < 1 (got ${from}, ${to})`);
  const c = capacityOf(p);
  return Array.from({ length: points }, (_, i) => c * (from + ((to - from) * i) / (points - 1)));
}

/** The same scenario at another Poisson rate (a restriction's unrestricted model moves with it). */
export function atArrivalRate(s: ValidatedScenario, rate: number): ValidatedScenario {
  const p = s.params;
  const restriction = p.restriction ? { ...p.restriction, unrestricted: { ...p.restriction.unrestricted, arrivalRate: rate } } : undefined;
  return { ...s, params: { ...p, arrivalRate: rate, ...(restriction ? { restriction } : {}) } };
}

export async function latencyAgainstLoad(input: unknown, o: LoadLatencyOptions = {}): Promise<LoadLatency> {
  const scenario = asValidated(input);
  const p = scenario.params;
  // Scaling an MMPP's rates would change its burstiness too; and its percentiles are not implemented.
  if (p.arrivalProcess) throw new ScenarioError('arrivalProcess', 'the load chart is for Poisson arrivals only (the response-time law is not implemented for MMPP)');
  const rates = loadRates(p, o.points ?? DEFAULT_LOAD_POINTS, o.from ?? 0.1, o.to ?? 0.95);
  const B = p.maxBatchSize;
  const solve = (s: ValidatedScenario, percentiles: boolean) => solveScenario(s, { signal: o.signal, backend: o.backend, percentiles });
  o.onProgress?.(`solving at the nominal λ = ${p.arrivalRate} /s`);
  const nominal = policyOf((await solve(scenario, false)).policy, B);
  const M = summarizePolicy(nominal, B).controlLimit;
  const optimal = emptySeries('optimal policy at each λ', 'optimal');
  const fixed = emptySeries(`λ = ${+p.arrivalRate.toPrecision(6)} /s optimum held fixed (control limit ${M})`, 'fixed');
  const greedy = emptySeries('greedy: serve whatever waits (zero-delay setting)', 'greedy');
  const settings: (LoadSeries & { points: LoadPoint[]; setting: BatchingSetting })[] = [];
  for (const target of o.settings ?? []) {
    o.onProgress?.(`exporting the ${TARGETS[target].label} setting for λ = ${p.arrivalRate} /s`);
    // The final side-by-side simulation of an export is not needed here: a short one.
    const { setting } = await exportPolicy(scenario, target, { signal: o.signal, backend: o.backend, requests: 20_000, onProgress: o.onProgress });
    const label = `${TARGETS[target].label}, delay ${+(setting.delay * 1e3).toPrecision(4)} ms (exported for λ = ${+p.arrivalRate.toPrecision(6)} /s; simulated)`;
    settings.push({ ...emptySeries(label, 'setting', 'simulated'), setting });
  }
  const sim = { replications: o.simulation?.replications ?? SETTING_REPLICATIONS, requests: o.simulation?.requests ?? SETTING_REQUESTS, seed: o.simulation?.seed ?? 1 };
  for (const [i, rate] of rates.entries()) {
    throwIfAborted(o.signal);
    o.onProgress?.(`λ = ${rate.toFixed(1)} /s (${i + 1} of ${rates.length})`);
    const at = atArrivalRate(scenario, rate);
    const r = await solve(at, true);
    add(optimal, rate, summarizePolicy(policyOf(r.policy, B), B).controlLimit, r.latency ? { latency: r.latency } : { latencyUnavailable: r.latencyUnavailable ?? 'not computed' });
    add(fixed, rate, M, evaluated(at.params, nominal));
    add(greedy, rate, 1, evaluated(at.params, greedyPolicy(B)));
    for (const s of settings) {
      const r = simulatedPercentiles(at.params, () => TARGETS[s.setting.target].simPolicy(s.setting), { ...sim, signal: o.signal });
      if ('reason' in r) s.unavailable.push({ arrivalRate: rate, reason: r.reason });
      else s.points.push({ arrivalRate: rate, controlLimit: 0, ...r });
    }
  }
  return { series: [optimal, fixed, greedy, ...settings], capacity: capacityOf(p), nominalRate: p.arrivalRate, rates };
}

function emptySeries(label: string, kind: LoadSeries['kind'], method: LoadSeries['method'] = 'exact'): LoadSeries & { points: LoadPoint[] } {
  return { label, kind, method, points: [], unavailable: [] };
}

/**
 * The percentiles of a batcher by independent replications (seeds seed, seed + 1, …): each
 * figure the mean over them, p99 with its Student 95 % half-width. A batcher that does not keep up
 * has none: the simulator refuses one whose sustained batch cannot clear λ, and one that served
 * λ less 5 standard deviations of the count in some replication had its queue growing through the run.
 */
export function simulatedPercentiles(
  p: ModelParams,
  policy: () => SimPolicy,
  o: { readonly replications: number; readonly requests: number; readonly seed: number; readonly signal?: AbortSignal },
): Omit<LoadPoint, 'arrivalRate' | 'controlLimit'> | { readonly reason: string } {
  let runs: SimulationResult[];
  try {
    runs = Array.from({ length: o.replications }, (_, i) => simulate(p, policy(), { requests: o.requests, seed: o.seed + i, signal: o.signal }));
  } catch (e) {
    // The simulator refuses a batcher whose sustained batch cannot clear λ (its queue would grow without bound).
    if (e instanceof ScenarioError && e.field === 'policy') return { reason: e.reason };
    throw e;
  }
  // A stable batcher serves λ up to the count's noise (~λ/√requests): 5 of those below is a growing queue.
  const slowest = Math.min(...runs.map((r) => r.throughput));
  if (slowest < (1 - 5 / Math.sqrt(o.requests)) * p.arrivalRate) return { reason: `the setting serves ${slowest.toFixed(1)} of λ = ${p.arrivalRate.toFixed(1)} requests/s in simulation: it does not keep up` };
  const mean = (f: (r: SimulationResult) => number): number => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  const p99s = runs.map((r) => r.percentiles.p99);
  return {
    p50: mean((r) => r.percentiles.p50),
    p90: mean((r) => r.percentiles.p90),
    p95: mean((r) => r.percentiles.p95),
    p99: mean((r) => r.percentiles.p99),
    p999: mean((r) => r.percentiles.p999),
    p99HalfWidth: meanHalfWidth(p99s, p99s.length, CONFIDENCE_LEVEL) ?? Infinity,
  };
}

function evaluated(p: ModelParams, policy: Policy): LatencyOutcome {
  return latencyOfEvaluation(p, policy, evaluatePolicy(p, policy));
}

function add(s: LoadSeries, arrivalRate: number, controlLimit: number, out: LatencyOutcome): void {
  if ('latency' in out) {
    const { p50, p90, p95, p99, p999 } = out.latency;
    s.points.push({ arrivalRate, controlLimit, p50, p90, p95, p99, p999 });
  } else {
    s.unavailable.push({ arrivalRate, reason: out.latencyUnavailable });
  }
}

/** The scenario for a chart's title and subtitle: the λ range drawn, B, the service law and the objective weights. */
export function loadChartTitle(p: ModelParams, load: LoadLatency): { readonly title: string; readonly subtitle: string } {
  const lo = load.rates[0];
  const hi = load.rates[load.rates.length - 1];
  const share = (r: number): string => `${Math.round((100 * r) / load.capacity)}`;
  return {
    title: 'Response time against load: p50–p99 band, p99.9 dashed',
    subtitle:
      `λ ${lo.toFixed(0)}–${hi.toFixed(0)} /s (${share(lo)}–${share(hi)} % of capacity ${load.capacity.toFixed(0)} /s; nominal ${+load.nominalRate.toPrecision(6)} /s) · ` +
      `${serviceLabel(p)} · ${weightsLabel(p)}`,
  };
}
