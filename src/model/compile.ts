import { arrivalPmf } from './arrivals.js';
import { LimitError } from './errors.js';
import { LIMITS } from './limits.js';
import type { ModelParams } from './scenario.js';

/**
 * The batching SMDP cut at S, in the compact tabular form every solver reads (spec §2–§4).
 *
 * Actions: a = 0 waits (s < S only), a = b ∈ 1..min(s, B) serves b. Everything an action
 * needs is independent of s except a linear holding cost, so the model is stored per action:
 *   transformed cost   c̃(s,a) = costSlope·s + kappa[a]
 *   sojourn            y(a)   = sojourn[a]   (1/λ for waiting, l(b) for serving)
 *   transition         wait: s → s+1;  serve b: s → s−b+k with k ~ pmf_b
 * Transitions past S use the quadratic tail extrapolation of §4:
 *   E[h(S+m)] = M0·h(S) + M1·Δ1 + Q·Δ2 over the overflow, with Q = (M2+M1)/2,
 * stored as ready coefficients on h(S), h(S−1), h(S−2) for every (s, b) that overflows.
 */
export interface CompiledModel {
  readonly params: ModelParams;
  /** Truncation level: states 0..S. */
  readonly S: number;
  readonly B: number;
  readonly lambda: number;
  /** Data-transformation step τ < min y. */
  readonly tau: number;
  /** w_lat/λ: c̃ grows by this per queued request. */
  readonly costSlope: number;
  /** Constant part of c̃ per action: [0] = w_pow·P0, [b] = w_lat·m2/(2l) + w_pow·P(b). */
  readonly kappa: Float64Array;
  /** Sojourn y(a): [0] = 1/λ, [b] = l(b). */
  readonly sojourn: Float64Array;
  /** Per b: arrival pmf as offset (smallest k), start in `pmf`, length. Index 0 unused. */
  readonly pmfOffset: Int32Array;
  readonly pmfStart: Int32Array;
  readonly pmfLength: Int32Array;
  readonly pmf: Float64Array;
  /** Per b: first state s whose serve-b transition can pass S, and where its rows start in `tailCoef`. */
  readonly tailFirstState: Int32Array;
  readonly tailStart: Int32Array;
  /** Triples (coefficient on h(S), on h(S−1), on h(S−2)) for s = tailFirstState[b]..S. */
  readonly tailCoef: Float64Array;
  /** Largest upward jump of any action (max over b of kmax − b, at least 1): the band above the diagonal. */
  readonly upReach: number;
}

/** The arrival pmfs of all batch sizes, shared by every S a solve tries. */
export interface PmfTable {
  readonly offset: Int32Array;
  readonly start: Int32Array;
  readonly length: Int32Array;
  readonly probs: Float64Array;
  /** Overflow moments, indexed like probs: for overflow starting at k0 = offset+i, m = k−k0+1. */
  readonly m0: Float64Array;
  readonly m1: Float64Array;
  readonly m2: Float64Array;
}

export function buildPmfTable(p: ModelParams): PmfTable {
  const B = p.maxBatchSize;
  const offset = new Int32Array(B + 1);
  const start = new Int32Array(B + 1);
  const length = new Int32Array(B + 1);
  const parts: Float64Array[] = [];
  let total = 0;
  for (let b = 1; b <= B; b++) {
    const pmf = arrivalPmf(p.distribution, p.arrivalRate, p.meanService[b], p.secondMoment[b], p.cv);
    offset[b] = pmf.offset;
    start[b] = total;
    length[b] = pmf.probs.length;
    total += pmf.probs.length;
    if (total > LIMITS.maxBandEntries) {
      throw new LimitError('serviceTime', `arrival-count laws need more than ${LIMITS.maxBandEntries} entries; lower cv or the load`);
    }
    parts.push(pmf.probs);
  }
  const probs = new Float64Array(total);
  parts.forEach((part, i) => probs.set(part, start[i + 1]));
  // Suffix moments by stable additions of non-negative terms (see CompiledModel).
  const m0 = new Float64Array(total);
  const m1 = new Float64Array(total);
  const m2 = new Float64Array(total);
  for (let b = 1; b <= B; b++) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    for (let i = length[b] - 1; i >= 0; i--) {
      const pk = probs[start[b] + i];
      // Moving the overflow start down by one adds 1 to every m and a new term with m = 1.
      s2 = s2 + 2 * s1 + s0 + pk;
      s1 = s1 + s0 + pk;
      s0 = s0 + pk;
      m0[start[b] + i] = s0;
      m1[start[b] + i] = s1;
      m2[start[b] + i] = s2;
    }
  }
  return { offset, start, length, probs, m0, m1, m2 };
}

/** Smallest truncation level: the tail extrapolation reads h(S−2). */
export const MIN_MAX_QUEUE = 2;

/** Data-transformation step of spec §3. */
export function transformationStep(p: ModelParams): number {
  let minY = 1 / p.arrivalRate;
  for (let b = 1; b <= p.maxBatchSize; b++) minY = Math.min(minY, p.meanService[b]);
  return 0.999 * minY;
}

/** Width of the band of the transition matrix: B below the diagonal (at least 2 for the tail), upReach above. */
export function bandWidth(model: Pick<CompiledModel, 'B' | 'upReach'>): number {
  return Math.max(model.B, 2) + model.upReach + 1;
}

export function compileModel(p: ModelParams, S: number, pmfs: PmfTable = buildPmfTable(p)): CompiledModel {
  const B = p.maxBatchSize;
  if (!Number.isInteger(S) || S < MIN_MAX_QUEUE) {
    throw new LimitError('solver.maxQueue', `must be an integer ≥ ${MIN_MAX_QUEUE} (got ${S})`);
  }
  if (S > LIMITS.maxQueue) throw new LimitError('solver.maxQueue', `must be ≤ ${LIMITS.maxQueue} (got ${S})`);
  const lambda = p.arrivalRate;
  const kappa = new Float64Array(B + 1);
  const sojourn = new Float64Array(B + 1);
  kappa[0] = p.powerWeight * p.idlePower;
  sojourn[0] = 1 / lambda;
  let upReach = 1;
  for (let b = 1; b <= B; b++) {
    const l = p.meanService[b];
    kappa[b] = (p.latencyWeight * p.secondMoment[b]) / (2 * l) + p.powerWeight * p.busyPower[b];
    sojourn[b] = l;
    upReach = Math.max(upReach, pmfs.offset[b] + pmfs.length[b] - 1 - b);
  }
  upReach = Math.min(upReach, S);
  const entries = (S + 1) * bandWidth({ B, upReach });
  if (entries > LIMITS.maxBandEntries) {
    throw new LimitError(
      'solver.maxQueue',
      `S = ${S} with band width ${bandWidth({ B, upReach })} needs ${entries} entries, over the bound ${LIMITS.maxBandEntries}`,
    );
  }

  const tailFirstState = new Int32Array(B + 1);
  const tailStart = new Int32Array(B + 1);
  let rows = 0;
  for (let b = 1; b <= B; b++) {
    const kmax = pmfs.offset[b] + pmfs.length[b] - 1;
    const first = Math.max(b, S + b - kmax + 1);
    tailFirstState[b] = first;
    tailStart[b] = rows;
    rows += Math.max(0, S - first + 1);
  }
  const tailCoef = new Float64Array(rows * 3);
  for (let b = 1; b <= B; b++) {
    const off = pmfs.offset[b];
    for (let s = tailFirstState[b]; s <= S; s++) {
      // Overflow starts at k0 = S − (s − b) + 1; m = k − k0 + 1 = s − b + k − S.
      const k0 = S - (s - b) + 1;
      let i = k0 - off;
      let shift = 0;
      if (i < 0) {
        shift = -i;
        i = 0;
      }
      const j = pmfs.start[b] + i;
      const a0 = pmfs.m0[j];
      const a1 = pmfs.m1[j] + shift * a0;
      const a2 = pmfs.m2[j] + 2 * shift * pmfs.m1[j] + shift * shift * a0;
      const q = (a2 + a1) / 2;
      const r = (tailStart[b] + s - tailFirstState[b]) * 3;
      tailCoef[r] = a0 + a1 + q;
      tailCoef[r + 1] = -a1 - 2 * q;
      tailCoef[r + 2] = q;
    }
  }
  return {
    params: p,
    S,
    B,
    lambda,
    tau: transformationStep(p),
    costSlope: p.latencyWeight / lambda,
    kappa,
    sojourn,
    pmfOffset: pmfs.offset,
    pmfStart: pmfs.start,
    pmfLength: pmfs.length,
    pmf: pmfs.probs,
    tailFirstState,
    tailStart,
    tailCoef,
    upReach,
  };
}
