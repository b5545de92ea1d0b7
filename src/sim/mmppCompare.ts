import { throwIfAborted } from '../model/errors.js';
import type { ModelParams } from '../model/scenario.js';
import { evaluatePolicy } from '../policy/evaluate.js';
import { broadcastPolicy, greedyPolicy, type Policy } from '../policy/policy.js';
import { defaultDelayGrid, type Comparison, type ComparisonRow, type DelayTrial } from './compare.js';
import { MmppTablePolicy } from './mmpp.js';
import type { SimPolicy } from './policies/types.js';
import { TritonPolicy } from './policies/triton.js';
import { CONFIDENCE_LEVEL } from './result.js';
import { simulateDetailed, tablePolicy, type DetailedSimulation } from './simulate.js';
import { meanHalfWidth } from './stats.js';

export interface MmppCompareOptions {
  /** Requests per final simulation (default 10⁶). */
  readonly requests?: number;
  /** Requests per simulation while tuning the Triton delay (default 2·10⁵). */
  readonly tuningRequests?: number;
  readonly seed?: number;
  readonly delayGrid?: readonly number[];
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: { done: number; total: number; step: string }) => void;
}

/**
 * `compare` on bursty traffic (docs/model.md §7): the MMPP-optimal per-phase policy against the policy
 * solved for the mean rate as if arrivals were Poisson, greedy, and Triton's dynamic batcher
 * with the max_queue_delay that simulates cheapest over a grid — all simulated under the
 * scenario's MMPP arrivals on one seed (paired differences), and the state policies also
 * evaluated exactly under the MMPP. Rows: optimal, poisson model, greedy, best triton.
 */
export async function compareMmppPolicies(
  params: ModelParams,
  optimal: Policy,
  poissonModel: Policy,
  opts: MmppCompareOptions = {},
): Promise<Comparison> {
  const proc = params.arrivalProcess;
  if (!proc) throw new Error('compareMmppPolicies: the scenario has no arrivalProcess');
  const B = params.maxBatchSize;
  const M = proc.phases;
  const seed = opts.seed ?? 1;
  const requests = opts.requests ?? 1_000_000;
  const tuningRequests = opts.tuningRequests ?? 200_000;
  const grid = opts.delayGrid ?? defaultDelayGrid(params);
  const total = grid.length + 4;
  let done = 0;
  const step = async (label: string): Promise<void> => {
    opts.onProgress?.({ done, total, step: label });
    await new Promise<void>((r) => setImmediate(r));
    throwIfAborted(opts.signal);
  };
  const exact = (p: Policy): number => evaluatePolicy(params, p, { signal: opts.signal }).averageCost;

  const delayTrials: DelayTrial[] = [];
  for (const d of grid) {
    await step(`triton delay ${d} s`);
    const r = simulateDetailed(params, triton(d, B), { requests: tuningRequests, seed: seed + 1, signal: opts.signal }).result;
    delayTrials.push({ maxQueueDelay: d, averageCost: r.averageCost, halfWidth: r.confidence.averageCost });
    done++;
  }
  const bestDelay = delayTrials.reduce((a, c) => (c.averageCost < a.averageCost ? c : a)).maxQueueDelay;

  const final = (policy: SimPolicy): DetailedSimulation => simulateDetailed(params, policy, { requests, seed, signal: opts.signal });
  await step('optimal');
  const opt = final(new MmppTablePolicy(optimal, 'optimal (per phase)'));
  const row = (label: string, d: DetailedSimulation, exactCost: number | null): ComparisonRow => ({
    label,
    simulation: d.result,
    exactCost,
    costAboveOptimal: paired(d, opt),
  });
  const rows: ComparisonRow[] = [row('optimal', opt, exact(optimal))];
  done++;
  await step('poisson model');
  const limit = poissonModel.actions.findIndex((a) => a > 0);
  const name = `Poisson model at λ̄ (serve from ${limit < 0 ? poissonModel.actions.length : limit})`;
  rows.push(row('poisson model', final(tablePolicy(poissonModel, B, name)), exact(broadcastPolicy(poissonModel, M))));
  done++;
  await step('greedy');
  rows.push(row('greedy', final(tablePolicy(greedyPolicy(B), B)), exact(broadcastPolicy(greedyPolicy(B), M))));
  done++;
  await step('best triton');
  rows.push(row('best triton', final(triton(bestDelay, B)), null));
  done++;
  opts.onProgress?.({ done, total, step: 'done' });
  return { rows, staticCosts: [], delayTrials };
}

function triton(delay: number, B: number): TritonPolicy {
  return new TritonPolicy({ maxQueueDelay: delay, preferredBatchSizes: [], maxBatchSize: B });
}

/** Difference of two runs' costs with the paired batch-means half-width (common random numbers). */
function paired(a: DetailedSimulation, b: DetailedSimulation): { difference: number; halfWidth: number | null } {
  const n = Math.min(a.groupCost.length, b.groupCost.length);
  const d = new Float64Array(n);
  for (let j = 0; j < n; j++) d[j] = a.groupCost[j] - b.groupCost[j];
  return { difference: a.result.averageCost - b.result.averageCost, halfWidth: meanHalfWidth(d, n, CONFIDENCE_LEVEL) };
}
