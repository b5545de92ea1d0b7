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

/**
 * Response-time percentiles against load: for arrival rates spread over a share of the capacity
 * B/l(B), the exact percentiles (docs/model.md §9) of the optimal policy solved at each rate, of
 * the nominal rate's optimum held fixed (what a setting tuned once and never retuned does as the
 * load drifts), and of greedy service (a serving system's zero-delay setting: serve whatever is
 * waiting). Exported settings with a positive delay are timeout policies, not queue-length
 * policies, so they have no exact law here and are not drawn.
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
}

export interface LoadSeries {
  readonly label: string;
  readonly kind: 'optimal' | 'fixed' | 'greedy';
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
}

export const DEFAULT_LOAD_POINTS = 12;

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
  for (const [i, rate] of rates.entries()) {
    throwIfAborted(o.signal);
    o.onProgress?.(`λ = ${rate.toFixed(1)} /s (${i + 1} of ${rates.length})`);
    const at = atArrivalRate(scenario, rate);
    const r = await solve(at, true);
    add(optimal, rate, summarizePolicy(policyOf(r.policy, B), B).controlLimit, r.latency ? { latency: r.latency } : { latencyUnavailable: r.latencyUnavailable ?? 'not computed' });
    add(fixed, rate, M, evaluated(at.params, nominal));
    add(greedy, rate, 1, evaluated(at.params, greedyPolicy(B)));
  }
  return { series: [optimal, fixed, greedy], capacity: capacityOf(p), nominalRate: p.arrivalRate, rates };
}

function emptySeries(label: string, kind: LoadSeries['kind']): LoadSeries & { points: LoadPoint[] } {
  return { label, kind, points: [], unavailable: [] };
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
