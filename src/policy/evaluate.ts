import { arrivalsOf, buildArrivalTable, type ArrivalTable } from '../model/arrivalTable.js';
import { ScenarioError } from '../model/errors.js';
import type { MmppProcess } from '../model/mmpp/process.js';
import type { ModelParams } from '../model/scenario.js';
import { EXTENSION_TOP_MASS, extendedSolutions, levelMass } from './extension.js';
import { broadcastPolicy, type Policy } from './policy.js';
import { chainFigures, type StateSums } from './stateChain.js';

/** Exact long-run figures of one stationary policy (docs/model.md §5), all in f64. */
export interface Evaluation {
  /** g = w_lat·E[R] + w_pow·E[P]. */
  readonly averageCost: number;
  /** E[R], seconds. */
  readonly meanResponseTime: number;
  /** E[P], watts. */
  readonly meanPower: number;
  /** Requests served per second (equals λ̄ for a stable policy). */
  readonly throughput: number;
  /** Share of time a batch is in service. */
  readonly utilization: number;
  /** Mean size of the batches served. */
  readonly meanBatchSize: number;
}

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

export interface DetailedEvaluation extends Evaluation {
  /** Per arrival phase (one entry for Poisson arrivals). */
  readonly phases: PhaseFigures[];
  /** Stationary distribution of the embedded chain, flat s-major over levels × phases. */
  readonly stationary: Float64Array;
  /** Queue levels of the extended chain. */
  readonly levels: number;
}

export interface EvaluateOptions {
  readonly table?: ArrivalTable;
  readonly signal?: AbortSignal;
  /** Extend at least this many levels (e.g. past a solver's S so its tail mass can be read). */
  readonly minLevels?: number;
}

function assertStable(p: ModelParams, proc: MmppProcess, policy: Policy): void {
  const b = policy.tailBatch;
  const l = p.meanService[b];
  if (!(proc.meanRate * l < b)) {
    const rate = p.arrivalProcess ? `mean arrival rate ${proc.meanRate}` : `arrivalRate ${p.arrivalRate}`;
    throw new ScenarioError('policy', `is unstable: for long queues it serves batches of ${b}, which clear at most ${b}/l(${b}) = ${b / l} /s < ${rate} /s`);
  }
}

/**
 * Evaluates a policy exactly on the embedded chain extended past its table by serving
 * min(s, tailBatch), far enough that the top of the extension carries < 1e-13:
 *   E[R] = Σν·H / (λ̄·Σν·y), H(s,j,wait) = s·y_j, H(s,j,b) = s·l(b) + E[∫₀^{T_b} A dt | j],
 *   E[P] = Σν·ζ / Σν·y, ζ(wait) = P0·y_j, ζ(b) = P(b)·l(b).
 * A one-phase policy acts the same in every phase of an MMPP.
 */
export function evaluatePolicy(p: ModelParams, policy: Policy, opts: EvaluateOptions = {}): DetailedEvaluation {
  const proc = arrivalsOf(p);
  const pol = broadcastPolicy(policy, proc.phases);
  assertStable(p, proc, pol);
  const table = opts.table ?? buildArrivalTable(p, opts.signal);
  for (const sol of extendedSolutions(p, proc, pol, table, opts)) {
    if (sol.top < EXTENSION_TOP_MASS) {
      return { ...figures(p, proc, sol.sums, sol.stationary), stationary: sol.stationary, levels: sol.levels };
    }
  }
  throw new Error('unreachable: the extension stopped');
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
  const proc = arrivalsOf(p);
  const pol = broadcastPolicy(policy, proc.phases);
  assertStable(p, proc, pol);
  const table = opts.table ?? buildArrivalTable(p, opts.signal);
  for (const sol of extendedSolutions(p, proc, pol, table, { ...opts, sizing: mass })) {
    const nu = sol.stationary;
    if (sol.top < mass) return upperQuantile(sol.levels, (s) => levelMass(nu, proc.phases, s), mass);
    if (sol.decay !== undefined) {
      // Mass above s0 is `above`; each further `reach` levels multiply it by `decay`.
      const { s0, above, perReach, reach } = sol.decay;
      return Math.ceil(s0 + (reach * Math.log(mass / above)) / Math.log(perReach));
    }
  }
  throw new Error('unreachable: the extension stopped');
}

/** docs/model.md §5: ratios of stationary sums, and the batches started per phase. */
function figures(p: ModelParams, proc: MmppProcess, sums: StateSums, nu: Float64Array) {
  const M = proc.phases;
  const served = new Float64Array(M);
  const started = new Float64Array(M);
  let allStarted = 0;
  for (let x = 0; x < nu.length; x++) {
    const j = x % M;
    served[j] += nu[x] * sums.served[x];
    started[j] += nu[x] * sums.batches[x];
    allStarted += nu[x] * sums.batches[x];
  }
  const phases: PhaseFigures[] = [];
  for (let j = 0; j < M; j++) {
    phases.push({
      phase: j,
      rate: proc.rates[j],
      probability: proc.stationary[j],
      batchShare: allStarted > 0 ? started[j] / allStarted : 0,
      meanBatchSize: started[j] > 0 ? served[j] / started[j] : 0,
    });
  }
  return { ...chainFigures(p, proc, sums, nu), phases };
}
