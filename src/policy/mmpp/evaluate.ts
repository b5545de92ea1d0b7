import { LimitError, ScenarioError, throwIfAborted } from '../../model/errors.js';
import { LIMITS } from '../../model/limits.js';
import { exitRate, type MmppProcess } from '../../model/mmpp/process.js';
import { buildMmppPmfTable, type MmppPmfTable } from '../../model/mmpp/table.js';
import type { ModelParams } from '../../model/scenario.js';
import { BandChain, solveChain } from '../chain.js';
import type { Evaluation } from '../evaluate.js';
import { mmppActionAt, mmppLevels, type MmppPolicy } from './policy.js';

/** What the batches started in one arrival phase look like under a policy. */
export interface PhaseFigures {
  readonly phase: number;
  /** λ_j, requests/s. */
  readonly rate: number;
  /** π_j: long-run share of time in the phase. */
  readonly probability: number;
  /** Share of all batches that start in this phase. */
  readonly batchShare: number;
  /** Mean size of the batches started in this phase (0 if none). */
  readonly meanBatchSize: number;
}

export interface MmppEvaluation extends Evaluation {
  readonly phases: PhaseFigures[];
}

export interface DetailedMmppEvaluation extends MmppEvaluation {
  /** Stationary distribution of the embedded chain, flat s-major over levels × phases. */
  readonly stationary: Float64Array;
  /** Queue levels of the extended chain. */
  readonly levels: number;
}

export interface MmppEvaluateOptions {
  readonly table?: MmppPmfTable;
  readonly signal?: AbortSignal;
  /** Extend at least this many levels (e.g. past a solver's S so its tail mass can be read). */
  readonly minLevels?: number;
}

/** Mass the extension's top may hold before it is grown (spec §5 asks < 1e-12 in all). */
const EXTENSION_TOP_MASS = 1e-13;

function assertStable(p: ModelParams, proc: MmppProcess, policy: MmppPolicy): void {
  const b = policy.tailBatch;
  const l = p.meanService[b];
  if (!(proc.meanRate * l < b)) {
    throw new ScenarioError(
      'policy',
      `is unstable: for long queues it serves batches of ${b}, which clear at most ${b}/l(${b}) = ${b / l} /s < mean arrival rate ${proc.meanRate} /s`,
    );
  }
}

/**
 * Exact long-run figures of an (s, j) policy under MMPP arrivals (spec §5 with the state of
 * §7), in f64, from the stationary distribution ν of the embedded chain extended past the
 * policy's table by serving min(s, tailBatch), grown until its top holds < 1e-13:
 *   E[R] = Σν·H / (λ̄·Σν·y), H(s,j,wait) = s·y_j, H(s,j,b) = s·l(b) + E[∫₀^{T_b} A dt | j],
 *   E[P] = Σν·ζ' / Σν·y, ζ'(wait) = P0·y_j, ζ'(b) = P(b)·l(b).
 */
export function evaluateMmppPolicy(
  p: ModelParams,
  proc: MmppProcess,
  policy: MmppPolicy,
  opts: MmppEvaluateOptions = {},
): DetailedMmppEvaluation {
  assertStable(p, proc, policy);
  const M = proc.phases;
  const table = opts.table ?? buildMmppPmfTable(p, proc, opts.signal);
  let lo = 1;
  let hi = 1;
  const used = (b: number): void => {
    lo = Math.max(lo, b);
    hi = Math.max(hi, table.offset[b] + table.length[b] - 1 - b);
  };
  for (let x = 0; x < policy.actions.length; x++) if (policy.actions[x] > 0) used(policy.actions[x]);
  for (let b = 1; b <= policy.tailBatch; b++) used(b);
  const reach = lo + hi;
  let levels = Math.max(mmppLevels(policy) + 2 * reach, opts.minLevels ?? 0, 64);
  for (;;) {
    throwIfAborted(opts.signal);
    if (levels * M * (reach + 1) * M > LIMITS.maxBandEntries) {
      throw new LimitError(
        'policy',
        `its queue does not settle within ${levels} levels (bound ${LIMITS.maxBandEntries} band entries): the policy is too close to instability`,
      );
    }
    const chain = buildChain(p, proc, policy, table, levels, lo, hi);
    const sol = solveChain(chain);
    let top = 0;
    for (let x = Math.max(0, levels - reach) * M; x < levels * M; x++) top += sol.stationary[x];
    if (top < EXTENSION_TOP_MASS) {
      return { ...figures(p, proc, policy, table, sol.stationary, levels), stationary: sol.stationary, levels };
    }
    levels *= 2;
  }
}

function buildChain(
  p: ModelParams,
  proc: MmppProcess,
  policy: MmppPolicy,
  table: MmppPmfTable,
  levels: number,
  loLevels: number,
  hiLevels: number,
): BandChain {
  const M = proc.phases;
  const Q = proc.generator;
  const n = levels * M;
  const ch = new BandChain(n, (loLevels + 1) * M - 1, (hiLevels + 1) * M - 1);
  const costSlope = p.latencyWeight / proc.meanRate;
  for (let s = 0; s < levels; s++) {
    for (let j = 0; j < M; j++) {
      const x = s * M + j;
      const a = mmppActionAt(policy, s, j);
      if (a === 0) {
        const y = 1 / (proc.rates[j] + exitRate(proc, j));
        if (proc.rates[j] > 0) ch.add(x, Math.min(s + 1, levels - 1) * M + j, proc.rates[j] * y);
        for (let jj = 0; jj < M; jj++) if (jj !== j) ch.add(x, s * M + jj, Q[j * M + jj] * y);
        ch.reward[x] = (costSlope * s + p.powerWeight * p.idlePower) * y;
        ch.time[x] = y;
        continue;
      }
      const L = table.length[a];
      const base = table.start[a] + j * L * M;
      const s0 = s - a + table.offset[a];
      for (let i = 0; i < L; i++) {
        const to = Math.min(s0 + i, levels - 1) * M;
        for (let jj = 0; jj < M; jj++) ch.add(x, to + jj, table.probs[base + i * M + jj]);
      }
      const l = p.meanService[a];
      ch.reward[x] = costSlope * (s * l + table.arrivalIntegral[a * M + j]) + p.powerWeight * p.busyPower[a] * l;
      ch.time[x] = l;
    }
  }
  return ch;
}

function figures(
  p: ModelParams,
  proc: MmppProcess,
  policy: MmppPolicy,
  table: MmppPmfTable,
  nu: Float64Array,
  levels: number,
): MmppEvaluation {
  const M = proc.phases;
  let sumH = 0;
  let sumY = 0;
  let sumEnergy = 0;
  let sumBusy = 0;
  const served = new Float64Array(M);
  const serving = new Float64Array(M);
  for (let s = 0; s < levels; s++) {
    for (let j = 0; j < M; j++) {
      const v = nu[s * M + j];
      if (v === 0) continue;
      const a = mmppActionAt(policy, s, j);
      if (a === 0) {
        const y = 1 / (proc.rates[j] + exitRate(proc, j));
        sumH += v * s * y;
        sumY += v * y;
        sumEnergy += v * p.idlePower * y;
      } else {
        const l = p.meanService[a];
        sumH += v * (s * l + table.arrivalIntegral[a * M + j]);
        sumY += v * l;
        sumEnergy += v * p.busyPower[a] * l;
        sumBusy += v * l;
        served[j] += v * a;
        serving[j] += v;
      }
    }
  }
  let totalServed = 0;
  let totalServing = 0;
  for (let j = 0; j < M; j++) {
    totalServed += served[j];
    totalServing += serving[j];
  }
  const meanResponseTime = sumH / (proc.meanRate * sumY);
  const meanPower = sumEnergy / sumY;
  const phases: PhaseFigures[] = [];
  for (let j = 0; j < M; j++) {
    phases.push({
      phase: j,
      rate: proc.rates[j],
      probability: proc.stationary[j],
      batchShare: totalServing > 0 ? serving[j] / totalServing : 0,
      meanBatchSize: serving[j] > 0 ? served[j] / serving[j] : 0,
    });
  }
  return {
    averageCost: p.latencyWeight * meanResponseTime + p.powerWeight * meanPower,
    meanResponseTime,
    meanPower,
    throughput: totalServed / sumY,
    utilization: sumBusy / sumY,
    meanBatchSize: totalServing > 0 ? totalServed / totalServing : 0,
    phases,
  };
}
