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
  let n = 0;
  for (const sol of extendedSolutions(p, policy, opts)) {
    n = sol.stationary.length;
    if (sol.top < EXTENSION_TOP_MASS) return { ...figures(p, policy, sol.stationary), stationary: sol.stationary, states: n };
  }
  throw new Error(`unreachable: extension stopped at ${n} states`);
}

/** The largest level q with P(level ≥ q) ≥ mass, for a distribution over levels 0..levels−1. */
export function upperQuantile(levels: number, massAt: (level: number) => number, mass: number): number {
  let tail = 0;
  let q = levels - 1;
  while (q > 0 && tail + massAt(q) < mass) tail += massAt(q--);
  return q;
}

/**
 * The queue length the policy exceeds with probability below `mass`, from one solve of a
 * moderate extension: when its top still holds too much, the quantile is read off the
 * geometric decay of the tail instead of solving longer chains. For sizing a truncation,
 * where a close estimate will do (the caller checks the tail afterwards).
 */
export function tailQuantile(p: ModelParams, policy: Policy, mass: number, opts: EvaluateOptions = {}): number {
  for (const sol of extendedSolutions(p, policy, opts)) {
    const nu = sol.stationary;
    if (sol.top < mass) return upperQuantile(nu.length, (s) => nu[s], mass);
    if (sol.decay !== undefined) {
      // Mass above s0 is `above`; each further `reach` states multiply it by `decay`.
      const { s0, above, perReach, reach } = sol.decay;
      return Math.ceil(s0 + (reach * Math.log(mass / above)) / Math.log(perReach));
    }
  }
  throw new Error('unreachable: extension stopped');
}

interface ExtendedSolution {
  readonly stationary: Float64Array;
  /** Mass in the top `reach` states (distorted by the cut: what lands past it stays there). */
  readonly top: number;
  /** Geometric decay of the tail, measured below the distorted top, when it is clean. */
  readonly decay?: { readonly s0: number; readonly above: number; readonly perReach: number; readonly reach: number };
}

/**
 * Solves the policy's chain extended by serving min(s, tailBatch), growing the extension
 * until the caller stops asking. Each growth jumps to where the measured decay of the tail
 * puts the top mass below the target (or doubles when the decay is not yet clean), so a
 * deep queue costs one or two solves instead of a ladder of doublings.
 */
function* extendedSolutions(p: ModelParams, policy: Policy, opts: EvaluateOptions): Generator<ExtendedSolution> {
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
  const maxStates = Math.floor(LIMITS.maxBandEntries / (reach + 1));
  let n = Math.max(policy.actions.length + 2 * reach, opts.minStates ?? 0, 64);
  for (;;) {
    throwIfAborted(opts.signal);
    if (n > maxStates) {
      throw new LimitError(
        'policy',
        `its queue does not settle within ${maxStates} states (bound ${LIMITS.maxBandEntries} band entries): the policy is too close to instability`,
      );
    }
    const chain = buildPolicyChain(p, policy, pmfs, n, lo, hi);
    const sol = solveChain(chain);
    const nu = sol.stationary;
    const massIn = (from: number, to: number): number => {
      let m = 0;
      for (let s = Math.max(0, from); s < Math.min(to, n); s++) m += nu[s];
      return m;
    };
    const top = massIn(n - reach, n);
    // Two windows of `reach` states below the top two (which the cut distorts).
    const s0 = n - 3 * reach;
    const w1 = massIn(s0 - reach, s0);
    const w2 = massIn(s0, s0 + reach);
    const perReach = w2 / w1;
    const clean = s0 - reach >= policy.actions.length && w1 > 0 && w2 > 0 && perReach < 0.9;
    const above = clean ? massIn(s0, n) : 0;
    yield { stationary: nu, top, ...(clean ? { decay: { s0, above, perReach, reach } } : {}) };
    let next = 2 * n;
    if (clean) {
      // Where the top window's mass falls 10× below the target, plus the distorted top.
      const windows = Math.log(EXTENSION_TOP_MASS / (10 * Math.max(top, Number.MIN_VALUE))) / Math.log(perReach);
      next = Math.min(2 * n, Math.max(n + reach, Math.ceil(n + windows * reach * 1.1)));
    }
    if (n < maxStates && next > maxStates) next = maxStates;
    n = next;
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
