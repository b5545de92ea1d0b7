import { servesBatch } from '../model/restriction.js';
import type { ModelParams } from '../model/scenario.js';

/**
 * The least mean power any stable policy can reach, from a two-constraint linear program.
 *
 * Long-run, a policy serves a fraction x_b of the requests in batches of b (Σ x_b = 1).
 * Power is idle power plus the extra energy of each batch over idling:
 *
 *     E[P] = P0 + λ·Σ x_b·e(b),   e(b) = (P(b) − P0)·l(b)/b   (extra joules per request)
 *
 * and the share of time busy is u = λ·Σ x_b·l(b)/b, which must stay below 1 for stability.
 * Minimising over x with u ≤ 1 is an LP with two rows, so an optimum uses at most two batch
 * sizes: one b with λ·l(b)/b ≤ 1, or two straddling u = 1. The LP value is a lower bound for
 * every policy. When the optimum is a single b with u < 1 it is attained, by "serve exactly
 * b whenever b are waiting"; otherwise (u = 1 binding) it is only approached as the queue,
 * and so the latency, grows without bound: the frontier then has no power end.
 */
export interface PowerBound {
  /** Infimum of E[P] over stable policies, watts. */
  readonly infimum: number;
  /** Whether a stable policy reaches it (a single batch size with utilisation < 1). */
  readonly attained: boolean;
  /** The batch sizes of the LP optimum (one or two). */
  readonly batchSizes: readonly number[];
}

export function powerBound(p: ModelParams): PowerBound {
  const B = p.maxBatchSize;
  const lambda = p.arrivalRate;
  const e = (b: number): number => ((p.busyPower[b] - p.idlePower) * p.meanService[b]) / b;
  const c = (b: number): number => (lambda * p.meanService[b]) / b; // utilisation if every batch had b
  let best = Infinity;
  let attained = false;
  let sizes: number[] = [];
  // Only the batches the model can serve (docs/model.md §11.1; padded sizes are in the tables already).
  const sizesServed: number[] = [];
  for (let b = 1; b <= B; b++) if (servesBatch(p, b)) sizesServed.push(b);
  for (const b of sizesServed) {
    if (c(b) < 1 && e(b) < best) {
      best = e(b);
      attained = true;
      sizes = [b];
    }
  }
  // Pairs with u = 1 exactly: x·c1 + (1 − x)·c2 = 1 with c1 < 1 < c2 (or c = 1 alone).
  for (const b1 of sizesServed) {
    const c1 = c(b1);
    if (!(c1 < 1)) continue;
    for (const b2 of sizesServed) {
      const c2 = c(b2);
      if (!(c2 >= 1)) continue;
      const x = (c2 - 1) / (c2 - c1);
      const v = x * e(b1) + (1 - x) * e(b2);
      if (v < best) {
        best = v;
        attained = false;
        sizes = [b1, b2];
      }
    }
  }
  return { infimum: p.idlePower + lambda * best, attained, batchSizes: sizes };
}
