import { throwIfAborted } from '../../model/errors.js';
import type { ModelParams } from '../../model/scenario.js';
import { simulate } from '../../sim/simulate.js';
import { TARGETS, type BatchingSetting } from './targets.js';

/**
 * Chooses the delay of a serving system's batcher that simulates cheapest at the scenario's
 * weights: since no timeout policy beats the optimal policy (waiting between decision
 * epochs never helps with Poisson arrivals), the cheapest is also the one closest to the
 * optimum's cost. A geometric grid finds the basin, a golden-section search refines it.
 * Every candidate runs on the same seed (common random numbers), so differences between
 * delays are not buried in simulation noise.
 */
export interface DelayTrial {
  readonly delay: number;
  readonly preferredBatchSizes: readonly number[];
  readonly maxOngoingRequests?: number;
  readonly allowedBatchSizes?: readonly number[];
  readonly averageCost: number;
  readonly halfWidth: number | null;
}

export interface TuneOptions {
  readonly requests: number;
  readonly seed: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (step: string) => void;
}

const GRID_POINTS = 14;
const GOLDEN_STEPS = 12;
const INV_PHI = (Math.sqrt(5) - 1) / 2;

/** Delay range worth trying: from a small fraction of the shortest time scale to a few control-limit fill times. */
export function delayRange(p: ModelParams, controlLimit: number): { lo: number; hi: number } {
  const lambda = p.arrivalRate;
  const lo = 0.02 * Math.min(p.meanService[1], 1 / lambda);
  const hi = 4 * (Math.max(controlLimit, 1) / lambda + p.meanService[p.maxBatchSize]);
  return { lo, hi };
}

export async function tuneDelay(
  p: ModelParams,
  base: Omit<BatchingSetting, 'delay'>,
  range: { lo: number; hi: number },
  o: TuneOptions,
): Promise<{ best: DelayTrial; trials: DelayTrial[] }> {
  const spec = TARGETS[base.target];
  // Whole units, divided rather than multiplied so that 5 µs prints as 0.000005, not 0.0000049999999999999996.
  const snap = (d: number): number => Math.max(spec.minUnits, Math.round(d * spec.perSecond)) / spec.perSecond;
  const seen = new Map<number, DelayTrial>();
  const trials: DelayTrial[] = [];
  const cost = async (d: number): Promise<number> => {
    const delay = snap(d);
    const key = Math.round(delay * spec.perSecond);
    const hit = seen.get(key);
    if (hit) return hit.averageCost;
    await new Promise<void>((r) => setImmediate(r));
    throwIfAborted(o.signal);
    o.onProgress?.(`tuning the delay: trial ${trials.length + 1}, ${delay} s`);
    const r = simulate(p, spec.simPolicy({ ...base, delay }), { requests: o.requests, seed: o.seed, signal: o.signal });
    const t: DelayTrial = {
      delay,
      preferredBatchSizes: base.preferredBatchSizes,
      ...(base.maxOngoingRequests === undefined ? {} : { maxOngoingRequests: base.maxOngoingRequests }),
      ...(base.allowedBatchSizes === undefined ? {} : { allowedBatchSizes: base.allowedBatchSizes }),
      averageCost: r.averageCost,
      halfWidth: r.confidence.averageCost,
    };
    seen.set(key, t);
    trials.push(t);
    return t.averageCost;
  };
  const grid = [snap(0)];
  for (let i = 0; i < GRID_POINTS; i++) grid.push(snap(range.lo * Math.pow(range.hi / range.lo, i / (GRID_POINTS - 1))));
  const delays = [...new Set(grid)].sort((x, y) => x - y);
  const costs: number[] = [];
  for (const d of delays) costs.push(await cost(d));
  let i = costs.indexOf(Math.min(...costs));
  // Golden section on the two grid intervals around the best grid point.
  let a = delays[Math.max(0, i - 1)];
  let b = delays[Math.min(delays.length - 1, i + 1)];
  let x1 = b - INV_PHI * (b - a);
  let x2 = a + INV_PHI * (b - a);
  let f1 = await cost(x1);
  let f2 = await cost(x2);
  for (let k = 0; k < GOLDEN_STEPS && (b - a) * spec.perSecond > 2; k++) {
    if (f1 <= f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - INV_PHI * (b - a);
      f1 = await cost(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + INV_PHI * (b - a);
      f2 = await cost(x2);
    }
  }
  // Ties are common: past some delay the timer never fires in the run, and every longer delay
  // simulates identically. Take the shortest of the cheapest, which bounds waits the most.
  const sorted = [...trials].sort((x, y) => x.delay - y.delay);
  const best = sorted.reduce((m, t) => (t.averageCost < m.averageCost ? t : m));
  return { best, trials: sorted };
}
