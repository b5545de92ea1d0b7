import { LimitError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { ModelParams } from '../scenario.js';
import { exitRate, type MmppProcess } from './process.js';
import { buildMmppPmfTable, type MmppPmfTable } from './table.js';

/**
 * The MMPP batching SMDP of spec §7 cut at S, in the flat form every solver reads (CPU now,
 * WebGPU later). States (s, j), s = 0..S, j = 0..M−1, flattened s-major: x = s·M + j, so a
 * vector of relative values h has length (S+1)·M and h[s·M + j] = h(s, j).
 *
 * Actions: a = 0 waits (s < S), a = b ∈ 1..min(s, B) serves b. Transformed costs and rates:
 *
 *   wait in (s, j):  c̃ = costSlope·s + waitKappa
 *                    τ/y·(E h − h) = τ·( λ_j·(h(s+1, j) − h(s, j)) + Σ_{j'≠j} Q_jj'·(h(s, j') − h(s, j)) )
 *   serve b in (s, j):
 *                    c̃ = costSlope·s + kappa[b·M + j]
 *                    E h = Σ_i Σ_j' pmf[pmfStart[b] + (j·pmfLength[b] + i)·M + j'] · h(s − b + pmfOffset[b] + i, j')
 *                          over the i with s − b + pmfOffset[b] + i ≤ S, plus the tail term below,
 *                    τ/y·(E h − h) with y = sojourn[b].
 *   For one (s, j, b) the in-range part is a single dot product of two contiguous runs:
 *   pmf from pmfStart[b] + j·pmfLength[b]·M and h from (s − b + pmfOffset[b])·M, length nIn·M.
 *
 * Tail (§4 per phase): h(S+m, j') ≈ h(S, j') + m·Δ1_j' + m(m+1)/2·Δ2_j'. For s ≥ tailFirstState[b]
 * the overflow from (s, j) adds Σ_j' c0·h(S, j') + c1·h(S−1, j') + c2·h(S−2, j') with
 *   (c0, c1, c2) = tailCoef[3·(((tailStart[b] + s − tailFirstState[b])·M + j)·M + j') + 0, 1, 2].
 */
export interface CompiledMmppModel {
  readonly params: ModelParams;
  readonly process: MmppProcess;
  readonly S: number;
  readonly B: number;
  /** Phases M. */
  readonly M: number;
  /** Data-transformation step τ < every sojourn. */
  readonly tau: number;
  /** λ̄. */
  readonly meanRate: number;
  /** w_lat/λ̄: c̃ grows by this per queued request. */
  readonly costSlope: number;
  /** w_pow·P0: the constant part of c̃ while waiting. */
  readonly waitKappa: number;
  /** λ_j (s → s+1 intensity while waiting). */
  readonly rates: Float64Array;
  /** Q, row-major M×M. */
  readonly generator: Float64Array;
  /** Mean sojourn of waiting in phase j, 1/(λ_j + q_j). */
  readonly waitSojourn: Float64Array;
  /** [b·M + j] = w_lat·E[∫A | j]/(λ̄·l(b)) + w_pow·P(b); index b = 0 unused. */
  readonly kappa: Float64Array;
  /** [b] = l(b). */
  readonly sojourn: Float64Array;
  readonly pmfOffset: Int32Array;
  readonly pmfStart: Int32Array;
  readonly pmfLength: Int32Array;
  readonly pmf: Float64Array;
  readonly tailFirstState: Int32Array;
  readonly tailStart: Int32Array;
  readonly tailCoef: Float64Array;
  /** Largest upward jump in levels (max over b of kmax − b, at least 1). */
  readonly upReach: number;
}

/** Data-transformation step: 0.999 × the shortest mean sojourn of any action in any phase. */
export function mmppTransformationStep(p: ModelParams, proc: MmppProcess): number {
  let minY = Infinity;
  for (let j = 0; j < proc.phases; j++) minY = Math.min(minY, 1 / (proc.rates[j] + exitRate(proc, j)));
  for (let b = 1; b <= p.maxBatchSize; b++) minY = Math.min(minY, p.meanService[b]);
  return 0.999 * minY;
}

/** Band of the flattened chain: lower and upper reach in flat indices. */
export function mmppBand(model: Pick<CompiledMmppModel, 'B' | 'M' | 'upReach'>): { lo: number; hi: number } {
  const M = model.M;
  return { lo: (Math.max(model.B, 2) + 1) * M - 1, hi: (model.upReach + 1) * M - 1 };
}

export function compileMmppModel(
  p: ModelParams,
  proc: MmppProcess,
  S: number,
  table: MmppPmfTable = buildMmppPmfTable(p, proc),
): CompiledMmppModel {
  const B = p.maxBatchSize;
  const M = proc.phases;
  if (!Number.isInteger(S) || S < 2) throw new LimitError('solver.maxQueue', `must be an integer ≥ 2 (got ${S})`);
  if (S > LIMITS.maxQueue) throw new LimitError('solver.maxQueue', `must be ≤ ${LIMITS.maxQueue} (got ${S})`);
  const lambdaBar = proc.meanRate;
  const costSlope = p.latencyWeight / lambdaBar;
  const kappa = new Float64Array((B + 1) * M);
  const sojourn = new Float64Array(B + 1);
  let upReach = 1;
  for (let b = 1; b <= B; b++) {
    const l = p.meanService[b];
    sojourn[b] = l;
    for (let j = 0; j < M; j++) {
      kappa[b * M + j] = (costSlope * table.arrivalIntegral[b * M + j]) / l + p.powerWeight * p.busyPower[b];
    }
    upReach = Math.max(upReach, table.offset[b] + table.length[b] - 1 - b);
  }
  upReach = Math.min(upReach, S);
  const waitSojourn = new Float64Array(M);
  for (let j = 0; j < M; j++) waitSojourn[j] = 1 / (proc.rates[j] + exitRate(proc, j));
  const { lo, hi } = mmppBand({ B, M, upReach });
  const entries = (S + 1) * M * (lo + hi + 1);
  if (entries > LIMITS.maxBandEntries) {
    throw new LimitError(
      'solver.maxQueue',
      `S = ${S} with ${M} phases and band width ${lo + hi + 1} needs ${entries} entries, over the bound ${LIMITS.maxBandEntries}`,
    );
  }
  const { tailFirstState, tailStart, tailCoef } = tailCoefficients(table, B, M, S);
  return {
    params: p,
    process: proc,
    S,
    B,
    M,
    tau: mmppTransformationStep(p, proc),
    meanRate: lambdaBar,
    costSlope,
    waitKappa: p.powerWeight * p.idlePower,
    rates: proc.rates,
    generator: proc.generator,
    waitSojourn,
    kappa,
    sojourn,
    pmfOffset: table.offset,
    pmfStart: table.start,
    pmfLength: table.length,
    pmf: table.probs,
    tailFirstState,
    tailStart,
    tailCoef,
    upReach,
  };
}

/**
 * Quadratic tail extrapolation of §4, one per ending phase: E[h(S+m, j')] over the overflow
 * to phase j' = M0·h(S) + M1·Δ1 + Q·Δ2 with Q = (M2 + M1)/2, rewritten on h(S), h(S−1), h(S−2).
 */
function tailCoefficients(table: MmppPmfTable, B: number, M: number, S: number) {
  const tailFirstState = new Int32Array(B + 1);
  const tailStart = new Int32Array(B + 1);
  let rows = 0;
  for (let b = 1; b <= B; b++) {
    const kmax = table.offset[b] + table.length[b] - 1;
    const first = Math.max(b, S + b - kmax + 1);
    tailFirstState[b] = first;
    tailStart[b] = rows;
    rows += Math.max(0, S - first + 1);
  }
  const tailCoef = new Float64Array(rows * M * M * 3);
  for (let b = 1; b <= B; b++) {
    const L = table.length[b];
    for (let s = tailFirstState[b]; s <= S; s++) {
      // Overflow starts at k0 = S − (s − b) + 1; m = k − k0 + 1 = s − b + k − S.
      let i = S - (s - b) + 1 - table.offset[b];
      let shift = 0;
      if (i < 0) {
        shift = -i;
        i = 0;
      }
      for (let j = 0; j < M; j++) {
        for (let jj = 0; jj < M; jj++) {
          const at = table.start[b] + (j * L + i) * M + jj;
          const a0 = table.m0[at];
          const a1 = table.m1[at] + shift * a0;
          const a2 = table.m2[at] + 2 * shift * table.m1[at] + shift * shift * a0;
          const q = (a2 + a1) / 2;
          const r = (((tailStart[b] + s - tailFirstState[b]) * M + j) * M + jj) * 3;
          tailCoef[r] = a0 + a1 + q;
          tailCoef[r + 1] = -a1 - 2 * q;
          tailCoef[r + 2] = q;
        }
      }
    }
  }
  return { tailFirstState, tailStart, tailCoef };
}
