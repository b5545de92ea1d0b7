import { Layout, releaseScratch, scratchFor } from '../wasm/kernels.js';
import { arrivalsOf, buildArrivalTable, type ArrivalTable, type GeometricCascade } from './arrivalTable.js';
import { modelCharge } from './chainEntries.js';
import { LimitError } from './errors.js';
import { LIMITS } from './limits.js';
import { epochSojourn } from './epoch.js';
import type { MmppProcess } from './mmpp/process.js';
import type { ModelParams } from './scenario.js';

/**
 * The batching SMDP cut at S, in the flat form every solver reads (docs/model.md §2–§4, §7).
 * States (s, j): queue length s = 0..S and arrival phase j = 0..M−1 (M = 1 for Poisson
 * arrivals), flattened s-major, x = s·M + j, so a vector of values has length (S+1)·M.
 *
 * Actions: a = 0 waits (s < S only), a = b ∈ 1..min(s, B) with serves[b] = 1 serves b (every b
 * unless a restriction allows only some sizes, docs/model.md §11.1; a padded size is already in
 * the per-b data, which are those of the size b is charged as). Per action and phase,
 * at index a·M + j:
 *   transformed cost   c̃(x, a) = costSlope·s + kappa[a·M + j]
 *   sojourn            y(x, a) = sojourn[a·M + j]   (1/(λ_j + q_j) waiting, l(b) serving)
 * Transitions:
 *   wait in (s, j):   (s+1, j) at intensity λ_j, (s, j') at Q_jj'; in the transformed MDP
 *                     τ/y·(E h − h) = waitRate[j]·(h(s+1, j) − h(s, j)) + Σ_j' phaseRate[j·M + j']·(h(s, j') − h(s, j))
 *   serve b in (s, j): (s − b + k, j') with probability
 *                     pmf[pmfStart[b] + (j·pmfLength[b] + i)·M + j'],  k = pmfOffset[b] + i.
 *   For one (x, b) the in-range part is one dot product of two contiguous runs: pmf from
 *   pmfStart[b] + j·pmfLength[b]·M and h from (s − b + pmfOffset[b])·M, of length nIn·M.
 * Transitions past S use the quadratic tail extrapolation of §4 per ending phase:
 *   h(S+m, j') ≈ h(S, j') + m·Δ1 + m(m+1)/2·Δ2, stored as coefficients on h(S, j'), h(S−1, j'),
 *   h(S−2, j') at tailCoef[3·(((tailStart[b] + s − tailFirstState[b])·M + j)·M + j') + 0, 1, 2]
 *   for s ≥ tailFirstState[b].
 */
export interface CompiledModel {
  readonly params: ModelParams;
  readonly process: MmppProcess;
  /** Truncation level: levels 0..S. */
  readonly S: number;
  readonly B: number;
  /** Arrival phases M (1 = Poisson). */
  readonly M: number;
  /** Data-transformation step τ < every sojourn. */
  readonly tau: number;
  /** λ̄, the mean arrival rate. */
  readonly meanRate: number;
  /** w_lat/λ̄: c̃ grows by this per queued request. */
  readonly costSlope: number;
  /** λ_j. */
  readonly rates: Float64Array;
  /** τ·λ_j. */
  readonly waitRate: Float64Array;
  /** τ·Q_jj' (off-diagonal; the diagonal is 0), row-major M×M. */
  readonly phaseRate: Float64Array;
  /** [a·M + j]: [j] = w_pow·P0, [b·M + j] = w_lat·hold(b, j)/l(b) + w_pow·P(b). */
  readonly kappa: Float64Array;
  /** [a·M + j]: [j] = 1/(λ_j + q_j), [b·M + j] = l(b). */
  readonly sojourn: Float64Array;
  readonly pmfOffset: Int32Array;
  readonly pmfStart: Int32Array;
  readonly pmfLength: Int32Array;
  readonly pmf: Float64Array;
  readonly tailFirstState: Int32Array;
  readonly tailStart: Int32Array;
  readonly tailCoef: Float64Array;
  /** Largest upward jump in levels of any action (max over b of kmax − b, at least 1). */
  readonly upReach: number;
  /** [b], b = 1..B: 1 when serving b is an action. serves[B] is always 1 (the policy past S serves min(s, B)). */
  readonly serves: Uint8Array;
  /**
   * When the count laws are sums of geometric laws (exponential service, gamma with an integer
   * shape; one phase): the Bellman step's serve sums by recurrence instead of over the pmf
   * (docs/model.md §3.2). The pmf, the tail coefficients and the evaluation are unchanged.
   */
  readonly cascade?: GeometricCascade;
}

/**
 * The action a policy starts from at level s: the largest batch it may serve there, min(s, B)
 * unrestricted; 0 (wait) when it may serve none (only at s < the smallest allowed size, so
 * never at S ≥ B).
 */
export function startAction(model: Pick<CompiledModel, 'B' | 'serves'>, s: number): number {
  for (let b = Math.min(s, model.B); b >= 1; b--) if (model.serves[b] === 1) return b;
  return 0;
}

/** Whether action a is one the model has at level s (wait below S; an allowed serve b ≤ s). */
export function isAction(model: Pick<CompiledModel, 'B' | 'S' | 'serves'>, s: number, a: number): boolean {
  if (a === 0) return s < model.S;
  return a >= 1 && a <= Math.min(s, model.B) && model.serves[a] === 1;
}

/** Smallest truncation level: the tail extrapolation reads h(S−2). */
export const MIN_MAX_QUEUE = 2;

/** Data-transformation step: 0.999 × the shortest mean sojourn of any action in any phase. */
export function transformationStep(p: ModelParams, proc: MmppProcess = arrivalsOf(p)): number {
  let minY = Infinity;
  for (let j = 0; j < proc.phases; j++) minY = Math.min(minY, epochSojourn(p, proc, 0, j));
  for (let b = 1; b <= p.maxBatchSize; b++) minY = Math.min(minY, p.meanService[b]);
  return 0.999 * minY;
}

/** Band of the flattened chain: largest downward (lo) and upward (hi) jump in flat indices. */
export function modelBand(model: Pick<CompiledModel, 'B' | 'M' | 'upReach'>): { lo: number; hi: number } {
  const M = model.M;
  return { lo: (Math.max(model.B, 2) + 1) * M - 1, hi: (model.upReach + 1) * M - 1 };
}

export function compileModel(p: ModelParams, S: number, table: ArrivalTable = buildArrivalTable(p)): CompiledModel {
  const B = p.maxBatchSize;
  const proc = arrivalsOf(p);
  const M = proc.phases;
  if (!Number.isInteger(S) || S < MIN_MAX_QUEUE) {
    throw new LimitError('solver.maxQueue', `must be an integer ≥ ${MIN_MAX_QUEUE} (got ${S})`);
  }
  if (S > LIMITS.maxQueue) throw new LimitError('solver.maxQueue', `must be ≤ ${LIMITS.maxQueue} (got ${S}; the bound maxQueue)`, { bound: 'maxQueue', excess: S / LIMITS.maxQueue });
  const serves = p.restriction ? p.restriction.serves : new Uint8Array(B + 1).fill(1, 1);
  // With only some sizes allowed, the top level must have one (the largest, B, once S ≥ B).
  if (startAction({ B, serves }, S) === 0) {
    throw new LimitError('solver.maxQueue', `S = ${S} is below the smallest allowed batch size: at S a batch must be served (give maxQueue ≥ ${B}, or 0)`);
  }
  const tau = transformationStep(p, proc);
  const kappa = new Float64Array((B + 1) * M);
  const sojourn = new Float64Array((B + 1) * M);
  const waitRate = new Float64Array(M);
  const phaseRate = new Float64Array(M * M);
  for (let j = 0; j < M; j++) {
    kappa[j] = p.powerWeight * p.idlePower;
    sojourn[j] = epochSojourn(p, proc, 0, j);
    waitRate[j] = tau * proc.rates[j];
    for (let jj = 0; jj < M; jj++) if (jj !== j) phaseRate[j * M + jj] = tau * proc.generator[j * M + jj];
  }
  let upReach = 1;
  for (let b = 1; b <= B; b++) {
    const l = p.meanService[b];
    for (let j = 0; j < M; j++) {
      kappa[b * M + j] = (p.latencyWeight * table.hold[b * M + j]) / l + p.powerWeight * p.busyPower[b];
      sojourn[b * M + j] = epochSojourn(p, proc, b, j);
    }
    upReach = Math.max(upReach, table.offset[b] + table.length[b] - 1 - b);
  }
  upReach = Math.min(upReach, S);
  // What the evaluation of a policy holds (chainEntries.ts): the geometric reduction's rows, else the band.
  const band = modelBand({ B, M, upReach });
  const charge = modelCharge({ S, M, B, cascade: table.cascade }, band, servedSizes(serves));
  if (charge.entries > LIMITS.maxBandEntries) {
    const phases = M > 1 ? ` with ${M} phases and` : ' with';
    const held = charge.counted === 'geometric' ? ' the geometric reduction (exponential service, no band)' : ` band width ${band.lo + band.hi + 1}`;
    throw new LimitError('solver.maxQueue', `S = ${S}${phases}${held} needs ${charge.entries} entries, over the bound maxBandEntries = ${LIMITS.maxBandEntries}`, {
      bound: 'maxBandEntries',
      excess: charge.entries / LIMITS.maxBandEntries,
    });
  }
  const { tailFirstState, tailStart, tailCoef } = tailCoefficients(table, B, M, S);
  return {
    params: p,
    process: proc,
    S,
    B,
    M,
    tau,
    meanRate: proc.meanRate,
    costSlope: p.latencyWeight / proc.meanRate,
    rates: proc.rates,
    waitRate,
    phaseRate,
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
    serves,
    cascade: table.cascade,
  };
}

/** How many batch sizes the model may serve (the classes of the geometric reduction at most). */
function servedSizes(serves: Uint8Array): number {
  let c = 0;
  for (let b = 1; b < serves.length; b++) c += serves[b];
  return c;
}

/**
 * Quadratic tail extrapolation of §4, one per ending phase: E[h(S+m, j')] over the overflow to
 * phase j' = M0·h(S) + M1·Δ1 + Q·Δ2 with Q = (M2 + M1)/2, rewritten on h(S), h(S−1), h(S−2).
 */
function tailCoefficients(table: ArrivalTable, B: number, M: number, S: number) {
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
  // The loop is wasm/build.ts tailCoefficients, on copies in the thread's scratch memory.
  const P = table.m0.length;
  const lay = new Layout();
  const at = {
    m0: lay.f64(P),
    m1: lay.f64(P),
    m2: lay.f64(P),
    tailCoef: lay.f64(tailCoef.length),
    offset: lay.i32(B + 1),
    start: lay.i32(B + 1),
    length: lay.i32(B + 1),
    tailFirstState: lay.i32(B + 1),
    tailStart: lay.i32(B + 1),
  };
  const mem = scratchFor(lay.bytes).scratch;
  const buf = mem.buffer;
  new Float64Array(buf, at.m0, P).set(table.m0);
  new Float64Array(buf, at.m1, P).set(table.m1);
  new Float64Array(buf, at.m2, P).set(table.m2);
  new Int32Array(buf, at.offset, B + 1).set(table.offset.subarray(0, B + 1));
  new Int32Array(buf, at.start, B + 1).set(table.start.subarray(0, B + 1));
  new Int32Array(buf, at.length, B + 1).set(table.length.subarray(0, B + 1));
  new Int32Array(buf, at.tailFirstState, B + 1).set(tailFirstState);
  new Int32Array(buf, at.tailStart, B + 1).set(tailStart);
  mem.kernels.tailCoefficients(at.offset, at.start, at.length, at.m0, at.m1, at.m2, at.tailFirstState, at.tailStart, at.tailCoef, B, M, S);
  tailCoef.set(new Float64Array(buf, at.tailCoef, tailCoef.length));
  releaseScratch(mem);
  return { tailFirstState, tailStart, tailCoef };
}
