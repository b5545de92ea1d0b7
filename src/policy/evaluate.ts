import { buildPmfTable, type PmfTable } from '../model/compile.js';
import { LimitError, ScenarioError, throwIfAborted } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import type { ModelParams } from '../model/scenario.js';
import { BandChain, solveChain } from './chain.js';
import { actionAt, type Policy } from './policy.js';

/** Exact long-run figures of one stationary policy (spec §5), all in f64. */
export interface Evaluation {
  /** g = w_lat·E[R] + w_pow·E[P]. */
  readonly averageCost: number;
  /** E[R], seconds. */
  readonly meanResponseTime: number;
  /** E[P], watts. */
  readonly meanPower: number;
  /** Requests served per second (equals λ for a stable policy). */
  readonly throughput: number;
  /** Share of time a batch is in service. */
  readonly utilization: number;
  /** Mean size of the batches served. */
  readonly meanBatchSize: number;
}

export interface DetailedEvaluation extends Evaluation {
  /** Stationary distribution of the embedded chain over 0..states−1. */
  readonly stationary: Float64Array;
  /** Number of states of the extended chain. */
  readonly states: number;
}

/** Mass the extension's top may hold before it is grown (spec §5 asks < 1e-12 in all). */
const EXTENSION_TOP_MASS = 1e-13;

export interface EvaluateOptions {
  readonly pmfs?: PmfTable;
  readonly signal?: AbortSignal;
  /** Extend at least this far (e.g. past a solver's S so its tail mass can be read). */
  readonly minStates?: number;
}

function assertStable(p: ModelParams, policy: Policy): void {
  const b = policy.tailBatch;
  const l = p.meanService[b];
  if (!(p.arrivalRate * l < b)) {
    throw new ScenarioError(
      'policy',
      `is unstable: for long queues it serves batches of ${b}, which clear at most ${b}/l(${b}) = ${b / l} /s < arrivalRate ${p.arrivalRate} /s`,
    );
  }
}

/**
 * Evaluates a policy exactly on the embedded chain extended past its table by serving
 * min(s, tailBatch), far enough that the top of the extension carries < 1e-13.
 */
export function evaluatePolicy(p: ModelParams, policy: Policy, opts: EvaluateOptions = {}): DetailedEvaluation {
  assertStable(p, policy);
  const pmfs = opts.pmfs ?? buildPmfTable(p);
  let lo = 1;
  let hi = 1;
  const usedBatch = (b: number): void => {
    lo = Math.max(lo, b);
    hi = Math.max(hi, pmfs.offset[b] + pmfs.length[b] - 1 - b);
  };
  for (let s = 0; s < policy.actions.length; s++) if (policy.actions[s] > 0) usedBatch(policy.actions[s]);
  for (let b = 1; b <= policy.tailBatch; b++) usedBatch(b);
  const reach = lo + hi;
  let n = Math.max(policy.actions.length + 2 * reach, opts.minStates ?? 0, 64);
  for (;;) {
    throwIfAborted(opts.signal);
    if (n * (reach + 1) > LIMITS.maxBandEntries) {
      throw new LimitError(
        'policy',
        `its queue does not settle within ${n} states (bound ${LIMITS.maxBandEntries} band entries): the policy is too close to instability`,
      );
    }
    const chain = buildPolicyChain(p, policy, pmfs, n, lo, hi);
    const sol = solveChain(chain);
    let top = 0;
    for (let s = Math.max(0, n - reach); s < n; s++) top += sol.stationary[s];
    if (top < EXTENSION_TOP_MASS) return { ...figures(p, policy, sol.stationary), stationary: sol.stationary, states: n };
    n *= 2;
  }
}

function buildPolicyChain(p: ModelParams, policy: Policy, pmfs: PmfTable, n: number, lo: number, hi: number): BandChain {
  const ch = new BandChain(n, lo, hi);
  const lambda = p.arrivalRate;
  for (let s = 0; s < n; s++) {
    const a = actionAt(policy, s);
    if (a === 0) {
      ch.add(s, Math.min(s + 1, n - 1), 1);
      ch.reward[s] = (p.latencyWeight * s) / (lambda * lambda) + (p.powerWeight * p.idlePower) / lambda;
      ch.time[s] = 1 / lambda;
      continue;
    }
    const off = pmfs.offset[a];
    const st = pmfs.start[a];
    const base = s - a + off;
    for (let i = 0; i < pmfs.length[a]; i++) ch.add(s, Math.min(base + i, n - 1), pmfs.probs[st + i]);
    const l = p.meanService[a];
    ch.reward[s] = (p.latencyWeight / lambda) * (s * l + (lambda * p.secondMoment[a]) / 2) + p.powerWeight * p.busyPower[a] * l;
    ch.time[s] = l;
  }
  return ch;
}

/** Spec §5 ratios of stationary sums. */
function figures(p: ModelParams, policy: Policy, nu: Float64Array): Evaluation {
  const lambda = p.arrivalRate;
  let sumH = 0;
  let sumY = 0;
  let sumEnergy = 0;
  let sumBusy = 0;
  let sumServed = 0;
  let sumServing = 0;
  for (let s = 0; s < nu.length; s++) {
    const v = nu[s];
    if (v === 0) continue;
    const a = actionAt(policy, s);
    if (a === 0) {
      sumH += (v * s) / lambda;
      sumY += v / lambda;
      sumEnergy += (v * p.idlePower) / lambda;
    } else {
      const l = p.meanService[a];
      sumH += v * (s * l + (lambda * p.secondMoment[a]) / 2);
      sumY += v * l;
      sumEnergy += v * p.busyPower[a] * l;
      sumBusy += v * l;
      sumServed += v * a;
      sumServing += v;
    }
  }
  const meanResponseTime = sumH / (lambda * sumY);
  const meanPower = sumEnergy / sumY;
  return {
    averageCost: p.latencyWeight * meanResponseTime + p.powerWeight * meanPower,
    meanResponseTime,
    meanPower,
    throughput: sumServed / sumY,
    utilization: sumBusy / sumY,
    meanBatchSize: sumServing > 0 ? sumServed / sumServing : 0,
  };
}
