import { throwIfAborted } from '../model/errors.js';
import type { ModelParams } from '../model/scenario.js';
import { evaluatePolicy } from '../policy/evaluate.js';
import { greedyPolicy, staticPolicy, type Policy } from '../policy/policy.js';
import { TritonPolicy } from './policies/triton.js';
import { searchStaticBatch } from './staticSearch.js';
import type { SimulationResult } from './result.js';
import { simulate, simulateDetailed, tablePolicy, type DetailedSimulation } from './simulate.js';
import { CONFIDENCE_LEVEL } from './result.js';
import { meanHalfWidth } from './stats.js';

export interface CompareOptions {
  /** Requests per final simulation (default 10⁶). */
  readonly requests?: number;
  /** Requests per simulation while tuning the Triton delay (default 2·10⁵). */
  readonly tuningRequests?: number;
  readonly seed?: number;
  /** Triton max_queue_delay values to try, seconds (default: defaultDelayGrid). */
  readonly delayGrid?: readonly number[];
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: { done: number; total: number; step: string }) => void;
}

export interface ComparisonRow {
  /** optimal | greedy | best static | best triton */
  readonly label: string;
  readonly simulation: SimulationResult;
  /** Exact average cost (docs/model.md §5) for state policies; null for timer policies. */
  readonly exactCost: number | null;
  /**
   * Simulated cost minus the optimal row's, with the 95 % half-width of the paired
   * batch means (same seed, so group j of both runs covers about the same arrivals).
   */
  readonly costAboveOptimal: { readonly difference: number; readonly halfWidth: number | null };
}

export interface DelayTrial {
  readonly maxQueueDelay: number;
  readonly averageCost: number;
  readonly halfWidth: number | null;
}

export interface Comparison {
  readonly rows: ComparisonRow[];
  /** Exact cost of every stable static b evaluated (all of them up to 64 sizes; see searchStaticBatch). */
  readonly staticCosts: { readonly batchSize: number; readonly averageCost: number }[];
  /** The Triton delay grid, simulated with tuningRequests on an independent seed. */
  readonly delayTrials: DelayTrial[];
}

/** 0 and 12 delays spaced geometrically from 5 % of l(1) to twice l(B). */
export function defaultDelayGrid(p: ModelParams): number[] {
  const lo = 0.05 * p.meanService[1];
  const hi = 2 * p.meanService[p.maxBatchSize];
  const n = 12;
  const grid = [0];
  for (let i = 0; i < n; i++) grid.push(+(lo * Math.pow(hi / lo, i / (n - 1))).toPrecision(3));
  return grid;
}

/**
 * The comparison table of `batchwise compare`: the optimal policy against greedy, the best
 * static batch size (chosen by exact evaluation) and Triton's dynamic batcher with the
 * max_queue_delay that simulates cheapest over a grid. The grid is run on a different seed
 * from the final rows, so that the delay's selection does not flatter its final figure;
 * the final rows share one seed (common random numbers) so their differences are sharp.
 */
export async function comparePolicies(params: ModelParams, optimal: Policy, opts: CompareOptions = {}): Promise<Comparison> {
  const B = params.maxBatchSize;
  const seed = opts.seed ?? 1;
  const requests = opts.requests ?? 1_000_000;
  const tuningRequests = opts.tuningRequests ?? 200_000;
  const grid = opts.delayGrid ?? defaultDelayGrid(params);
  const total = grid.length + 5;
  let done = 0;
  const step = async (label: string): Promise<void> => {
    opts.onProgress?.({ done, total, step: label });
    // Yield so that a progress bar redraws and an abort is seen between runs.
    await new Promise<void>((r) => setImmediate(r));
    throwIfAborted(opts.signal);
  };
  const run = (policy: Parameters<typeof simulate>[1], n: number, s: number): SimulationResult =>
    simulate(params, policy, { requests: n, seed: s, signal: opts.signal });

  await step('static batch sizes (exact)');
  // Stable static sizes form an interval [smallest stable b, B] when l(b)/b falls with b (a
  // linear fit with a base does); any unstable b in it is priced at Infinity.
  let firstStable = 1;
  while (firstStable < B && !(params.arrivalRate * params.meanService[firstStable] < firstStable)) firstStable++;
  const costs = searchStaticBatch(firstStable, B, (b) =>
    params.arrivalRate * params.meanService[b] < b ? evaluatePolicy(params, staticPolicy(b), { signal: opts.signal }).averageCost : Infinity,
  );
  const staticCosts = [...costs]
    .filter(([, c]) => Number.isFinite(c))
    .sort((a, b) => a[0] - b[0])
    .map(([batchSize, averageCost]) => ({ batchSize, averageCost }));
  const bestStatic = staticCosts.reduce((a, c) => (c.averageCost < a.averageCost ? c : a));
  done++;

  const delayTrials: DelayTrial[] = [];
  for (const d of grid) {
    await step(`triton delay ${d} s`);
    const r = run(new TritonPolicy({ maxQueueDelay: d, preferredBatchSizes: [], maxBatchSize: B }), tuningRequests, seed + 1);
    delayTrials.push({ maxQueueDelay: d, averageCost: r.averageCost, halfWidth: r.confidence.averageCost });
    done++;
  }
  const bestDelay = delayTrials.reduce((a, c) => (c.averageCost < a.averageCost ? c : a)).maxQueueDelay;

  const rows: ComparisonRow[] = [];
  const exact = (p: Policy): number => evaluatePolicy(params, p, { signal: opts.signal }).averageCost;
  const final = (policy: Parameters<typeof simulate>[1]): DetailedSimulation =>
    simulateDetailed(params, policy, { requests, seed, signal: opts.signal });
  await step('optimal');
  const opt = final(tablePolicy(optimal, B, 'optimal'));
  const row = (label: string, d: DetailedSimulation, exactCost: number | null): ComparisonRow => ({
    label,
    simulation: d.result,
    exactCost,
    costAboveOptimal: pairedDifference(d, opt),
  });
  rows.push(row('optimal', opt, exact(optimal)));
  done++;
  await step('greedy');
  rows.push(row('greedy', final(greedyPolicy(B)), exact(greedyPolicy(B))));
  done++;
  await step(`static:${bestStatic.batchSize}`);
  rows.push(row('best static', final(staticPolicy(bestStatic.batchSize)), bestStatic.averageCost));
  done++;
  await step('best triton');
  const triton = new TritonPolicy({ maxQueueDelay: bestDelay, preferredBatchSizes: [], maxBatchSize: B });
  rows.push(row('best triton', final(triton), null));
  done++;
  opts.onProgress?.({ done, total, step: 'done' });
  return { rows, staticCosts, delayTrials };
}

/** Difference of two runs' costs with the paired batch-means half-width. */
function pairedDifference(a: DetailedSimulation, b: DetailedSimulation): { difference: number; halfWidth: number | null } {
  const n = Math.min(a.groupCost.length, b.groupCost.length);
  const d = new Float64Array(n);
  for (let j = 0; j < n; j++) d[j] = a.groupCost[j] - b.groupCost[j];
  return { difference: a.result.averageCost - b.result.averageCost, halfWidth: meanHalfWidth(d, n, CONFIDENCE_LEVEL) };
}
