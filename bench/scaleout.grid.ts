/**
 * Cheap but varied SolveBatch requests for the scale-out tests and benchmark: every scenario
 * solves in milliseconds (B ≤ 8, load ≤ 0.6), so a batch of thousands measures the queue, not
 * the solver, while still covering four service laws, two batch sizes, several latency and
 * power weights and (optionally) unstable points that must come back as errors in place.
 */
import type { Scenario } from '../src/model/scenario.js';
import type { SolveBatchRequest } from '../src/service/messages.js';

/** The V100/GoogLeNet service-time fit of docs/model.md §6 (seconds per batch of b: perItem·b + base). */
export const FIT = { perItem: 0.0001438, base: 0.0018874 } as const;

/** Service laws: deterministic, exponential and gamma with a low and a high coefficient of variation. */
export const SERVICE_LAWS = [
  { distribution: 'DETERMINISTIC' },
  { distribution: 'EXPONENTIAL' },
  { distribution: 'GAMMA', cv: 0.5 },
  { distribution: 'GAMMA', cv: 1.2 },
] as const;
export const BATCH_SIZES = [4, 8] as const;
export const LATENCY_WEIGHTS = [0.5, 1, 2, 4, 8] as const;
export const POWER_WEIGHTS = [0, 1e-4, 3e-4, 1e-3, 3e-3] as const;
/** Load of the unstable points: λ above the capacity B / l(B), which no policy can serve. */
export const UNSTABLE_LOAD = 1.2;

/** Capacity B / l(B) of the fit, in scenarios per second. */
export const capacity = (B: number): number => B / (FIT.perItem * B + FIT.base);

/**
 * `loads` loads per (law, B, weights) cell: evenly from 0.05 to 0.6 of capacity, the last one
 * replaced by UNSTABLE_LOAD when `unstable`. Size: 4 laws × 2 B × 5 × 5 weights × loads = 200·loads
 * (2 000 for 10 loads, 10 000 for 50).
 */
export function cheapScenarios(loads: number, unstable = false): Scenario[] {
  const rho = Array.from({ length: loads }, (_, i) => (loads === 1 ? 0.3 : 0.05 + (0.55 * i) / (loads - 1)));
  if (unstable) rho[loads - 1] = UNSTABLE_LOAD;
  const out: Scenario[] = [];
  for (const law of SERVICE_LAWS)
    for (const B of BATCH_SIZES)
      for (const r of rho)
        for (const latencyWeight of LATENCY_WEIGHTS)
          for (const powerWeight of POWER_WEIGHTS)
            out.push({
              arrivalRate: r * capacity(B),
              maxBatchSize: B,
              serviceTime: { linear: { ...FIT }, ...law },
              power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
              objective: { latencyWeight, powerWeight },
            } as Scenario);
  return out;
}

/** The scenarios as a SolveBatch list request. */
export function cheapBatch(loads: number, unstable = false): SolveBatchRequest {
  // The subject is the queue and the workers, not the percentiles (which cost more than these solves).
  return { list: { scenarios: cheapScenarios(loads, unstable) }, skipPercentiles: true };
}
