import { LimitError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { ModelParams } from '../scenario.js';
import { countingMatrices, type ServiceLaw } from './counting.js';
import { arrivalIntegral } from './integral.js';
import type { MmppProcess } from './process.js';

/**
 * Everything about arrivals during a batch of b that does not depend on the truncation level S,
 * built once per scenario and shared by every S an automatic solve tries (the MMPP analogue of
 * `PmfTable`). Per b, a block of `length[b]·M²` entries at `start[b]`, laid out
 * [j][i][j'] (starting phase, k − offset[b], ending phase): see CountingBlock.
 */
export interface MmppPmfTable {
  readonly phases: number;
  readonly offset: Int32Array;
  readonly start: Int32Array;
  readonly length: Int32Array;
  readonly probs: Float64Array;
  /** Overflow moments, indexed like probs: for overflow starting at k0 = offset + i, m = k − k0 + 1, per (j, j'). */
  readonly m0: Float64Array;
  readonly m1: Float64Array;
  readonly m2: Float64Array;
  /** E[∫₀^{T_b} A(t) dt | J(0) = j] at [b·M + j]. */
  readonly arrivalIntegral: Float64Array;
  /** Uniformization rate θ and steps used. */
  readonly theta: number;
  readonly steps: number;
}

export function serviceLaws(p: ModelParams): ServiceLaw[] {
  const laws: ServiceLaw[] = [];
  for (let b = 1; b <= p.maxBatchSize; b++) {
    laws.push({ distribution: p.distribution, mean: p.meanService[b], secondMoment: p.secondMoment[b], cv: p.cv });
  }
  return laws;
}

export function buildMmppPmfTable(p: ModelParams, proc: MmppProcess, signal?: AbortSignal): MmppPmfTable {
  const B = p.maxBatchSize;
  const M = proc.phases;
  const M2 = M * M;
  const counting = countingMatrices(proc, serviceLaws(p), signal);
  const offset = new Int32Array(B + 1);
  const start = new Int32Array(B + 1);
  const length = new Int32Array(B + 1);
  let total = 0;
  for (let b = 1; b <= B; b++) {
    const blk = counting.blocks[b - 1];
    offset[b] = blk.offset;
    length[b] = blk.length;
    start[b] = total;
    total += blk.length * M2;
  }
  if (total > LIMITS.maxBandEntries) {
    throw new LimitError('arrivalProcess', `the counting matrices need ${total} entries, over the bound ${LIMITS.maxBandEntries}`);
  }
  const probs = new Float64Array(total);
  for (let b = 1; b <= B; b++) probs.set(counting.blocks[b - 1].probs, start[b]);
  const m0 = new Float64Array(total);
  const m1 = new Float64Array(total);
  const m2 = new Float64Array(total);
  for (let b = 1; b <= B; b++) {
    const L = length[b];
    for (let j = 0; j < M; j++) {
      for (let jj = 0; jj < M; jj++) {
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        for (let i = L - 1; i >= 0; i--) {
          const at = start[b] + (j * L + i) * M + jj;
          const pk = probs[at];
          // Moving the overflow start down by one adds 1 to every m and a new term with m = 1.
          s2 = s2 + 2 * s1 + s0 + pk;
          s1 = s1 + s0 + pk;
          s0 = s0 + pk;
          m0[at] = s0;
          m1[at] = s1;
          m2[at] = s2;
        }
      }
    }
  }
  const integral = new Float64Array((B + 1) * M);
  for (let b = 1; b <= B; b++) {
    integral.set(arrivalIntegral(proc, counting.theta, counting.events[b - 1], p.secondMoment[b]), b * M);
  }
  return {
    phases: M,
    offset,
    start,
    length,
    probs,
    m0,
    m1,
    m2,
    arrivalIntegral: integral,
    theta: counting.theta,
    steps: counting.steps,
  };
}
