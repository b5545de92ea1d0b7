import { arrivalPmf, negativeBinomial } from './arrivals.js';
import { LimitError } from './errors.js';
import { LIMITS } from './limits.js';
import { countingMatrices, type ServiceLaw } from './mmpp/counting.js';
import { arrivalIntegral } from './mmpp/integral.js';
import { poissonAsMmpp, type MmppProcess } from './mmpp/process.js';
import type { ModelParams } from './scenario.js';

/**
 * Everything about the arrivals during a batch of b that does not depend on the truncation
 * level S: built once per scenario and shared by every S an automatic solve tries.
 *
 * Per b, a block of `length[b]·M²` entries at `start[b]`, laid out [j][i][j'] (phase when the
 * batch starts, k − offset[b], phase when it ends): probs[start[b] + (j·length[b] + i)·M + j']
 * = P(k arrivals and phase j' at the end | phase j at the start). With one phase (Poisson
 * arrivals) the block is the plain arrival-count pmf.
 */
export interface ArrivalTable {
  readonly phases: number;
  readonly offset: Int32Array;
  readonly start: Int32Array;
  readonly length: Int32Array;
  readonly probs: Float64Array;
  /** Overflow moments, indexed like probs: for an overflow starting at k0 = offset + i, m = k − k0 + 1, per (j, j'). */
  readonly m0: Float64Array;
  readonly m1: Float64Array;
  readonly m2: Float64Array;
  /**
   * E[∫₀^{T_b} A(t) dt | J(0) = j] / λ̄ at [b·M + j]: the latency a batch's service adds through
   * the requests arriving during it, per unit of mean rate (m2(b)/2 for Poisson arrivals).
   */
  readonly hold: Float64Array;
  /** The count laws as sums of geometric laws, where they are exactly that and it pays (GeometricCascade). */
  readonly cascade?: GeometricCascade;
}

/**
 * One-phase count laws that are sums of `shape` independent geometric laws with ratio q_b:
 * exponential service (shape 1) and gamma service whose shape 1/cv² is an integer n (the
 * negative binomial NB(n, q) is the n-fold convolution of geometric(q)). The Bellman step then
 * forms each serve sum by a backward recurrence in s, O(shape) per state and action instead of
 * O(pmf length) (docs/model.md §3.2). Per b: ratio[b] = q_b, complement[b] = 1 − q_b.
 */
export interface GeometricCascade {
  readonly shape: number;
  readonly ratio: Float64Array;
  readonly complement: Float64Array;
}

/**
 * The cascade is used when shape × this is below the mean pmf length: a recurrence stage costs
 * about as much as this many terms of the direct sum.
 */
export const CASCADE_STAGE_COST = 4;
/** How far (in units of ε·n) 1/cv² may lie from the integer n for the cascade of n stages. */
const SHAPE_ULPS = 4;

/** The scenario's arrival process; Poisson arrivals are its one-phase case. */
export function arrivalsOf(p: ModelParams): MmppProcess {
  return p.arrivalProcess ?? poissonAsMmpp(p.arrivalRate);
}

export function serviceLaws(p: ModelParams): ServiceLaw[] {
  const laws: ServiceLaw[] = [];
  for (let b = 1; b <= p.maxBatchSize; b++) {
    laws.push({ distribution: p.distribution, mean: p.meanService[b], secondMoment: p.secondMoment[b], cv: p.cv });
  }
  return laws;
}

/**
 * One phase takes the closed-form count laws (ratio recurrences, arrivals.ts); several phases
 * the counting matrices of the MMPP (uniformization or convolution, mmpp/counting.ts). The
 * choice is made here, once, and everything downstream reads the same layout.
 */
export function buildArrivalTable(p: ModelParams, signal?: AbortSignal): ArrivalTable {
  const proc = arrivalsOf(p);
  const blocks = proc.phases === 1 ? poissonBlocks(p, proc.rates[0]) : mmppBlocks(p, proc, signal);
  return withOverflowMoments(p, proc.phases, blocks);
}

interface Blocks {
  readonly offset: Int32Array;
  readonly start: Int32Array;
  readonly length: Int32Array;
  readonly probs: Float64Array;
  readonly hold: Float64Array;
  readonly cascade?: GeometricCascade;
}

function poissonBlocks(p: ModelParams, rate: number): Blocks {
  const B = p.maxBatchSize;
  const offset = new Int32Array(B + 1);
  const start = new Int32Array(B + 1);
  const length = new Int32Array(B + 1);
  const hold = new Float64Array(B + 1);
  const parts: Float64Array[] = [];
  let total = 0;
  for (let b = 1; b <= B; b++) {
    const pmf = arrivalPmf(p.distribution, rate, p.meanService[b], p.secondMoment[b], p.cv);
    offset[b] = pmf.offset;
    start[b] = total;
    length[b] = pmf.probs.length;
    total += pmf.probs.length;
    if (total > LIMITS.maxBandEntries) {
      throw new LimitError('serviceTime', `arrival-count laws need more than ${LIMITS.maxBandEntries} entries; lower cv or the load`);
    }
    parts.push(pmf.probs);
    hold[b] = p.secondMoment[b] / 2;
  }
  const probs = new Float64Array(total);
  parts.forEach((part, i) => probs.set(part, start[i + 1]));
  return { offset, start, length, probs, hold, cascade: geometricCascade(p, rate, total) };
}

/** The count laws' cascade (GeometricCascade), or undefined where it is not exact or would not pay. */
function geometricCascade(p: ModelParams, rate: number, pmfEntries: number): GeometricCascade | undefined {
  const B = p.maxBatchSize;
  const ratio = new Float64Array(B + 1);
  const complement = new Float64Array(B + 1);
  let shape = 0;
  for (let b = 1; b <= B; b++) {
    const nb = negativeBinomial(p.distribution, rate * p.meanService[b], p.cv);
    // Exact only for an integer shape (the same for every b: it is 1/cv²). 1/cv² of a typed
    // cv = 1/√n misses n by an ulp or two; within SHAPE_ULPS the laws differ by less than the
    // ratio walk of arrivalPmf rounds (docs/model.md §3.2).
    const n = nb ? Math.round(nb.shape) : 0;
    if (!nb || n < 1 || Math.abs(nb.shape - n) > SHAPE_ULPS * Number.EPSILON * n) return undefined;
    shape = n;
    ratio[b] = nb.q;
    complement[b] = nb.complement;
  }
  return shape * CASCADE_STAGE_COST < pmfEntries / B ? { shape, ratio, complement } : undefined;
}

function mmppBlocks(p: ModelParams, proc: MmppProcess, signal?: AbortSignal): Blocks {
  const B = p.maxBatchSize;
  const M = proc.phases;
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
    total += blk.length * M * M;
  }
  if (total > LIMITS.maxBandEntries) {
    throw new LimitError('arrivalProcess', `the counting matrices need ${total} entries, over the bound ${LIMITS.maxBandEntries}`);
  }
  const probs = new Float64Array(total);
  for (let b = 1; b <= B; b++) probs.set(counting.blocks[b - 1].probs, start[b]);
  const hold = new Float64Array((B + 1) * M);
  for (let b = 1; b <= B; b++) {
    const integral = arrivalIntegral(proc, counting.theta, counting.events[b - 1], p.secondMoment[b]);
    for (let j = 0; j < M; j++) hold[b * M + j] = integral[j] / proc.meanRate;
  }
  return { offset, start, length, probs, hold };
}

/** Suffix moments of every (b, j, j') run, by stable additions of non-negative terms. */
function withOverflowMoments(p: ModelParams, M: number, blk: Blocks): ArrivalTable {
  const { start, length, probs } = blk;
  const m0 = new Float64Array(probs.length);
  const m1 = new Float64Array(probs.length);
  const m2 = new Float64Array(probs.length);
  for (let b = 1; b <= p.maxBatchSize; b++) {
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
  return { phases: M, ...blk, m0, m1, m2 };
}
