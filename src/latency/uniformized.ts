import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import type { DetailedEvaluation } from '../policy/evaluate.js';
import { broadcastPolicy, type Policy } from '../policy/policy.js';
import { poissonWindow } from './poissonWindow.js';
import type { ResponseTimeLaw } from './law.js';
import { grown } from './grown.js';
import { LazyChain } from './uniformChain.js';
import { uniformEntry, type UniformEntry } from './uniformEntry.js';

export interface UniformizedOptions {
  /** Poisson mass left out of each P(R > t) sum (default 1e-13). */
  readonly poissonTail?: number;
  /** Stop the steps once the survival a_n is below this (default 1e-18): E[R]'s remainder is then negligible. */
  readonly survivalStop?: number;
  /** Most uniformization steps before giving up (default 200,000). */
  readonly maxSteps?: number;
  /** Refuse (LimitError) once the moves stepped, summed over the steps, pass this (default: no bound). */
  readonly maxWork?: number;
  /** Mass on a state below this is dropped rather than stepped, and counted in the CDF bound (default 1e-20). */
  readonly dropBelow?: number;
  /** Entry points under this mass are dropped, and counted in the CDF bound (default 1e-16, uniformEntry.ts ENTRY_MIN_MASS). */
  readonly entryMinMass?: number;
}

/**
 * The exact response-time law for exponential service (docs/model.md §9.2), Poisson or MMPP
 * arrivals: the remaining time after arrival is the absorption time of the CTMC of
 * uniformChain.ts started from the entry law of uniformEntry.ts. Uniformized at rate Λ,
 *   a_n = P(not absorbed after n jumps),  P(R > t) = Σ_n Pois(n; Λt)·a_n,  E[R] = Σ_n a_n / Λ,
 * so one pass of steps serves every t. The stated CDF error is rigorous: the Poisson mass left
 * out (≤ 1e-13), the entry mass dropped, the mass dropped from states while stepping (the computed
 * a_n is below the exact one by at most what was dropped up to step n), a_n ≤ a_last for steps
 * not taken, and rounding.
 */
export function uniformizedLaw(model: CompiledModel, policy: Policy, ev: DetailedEvaluation, opts: UniformizedOptions = {}): ResponseTimeLaw {
  const p = model.params;
  // EXPONENTIAL validates to cv = 1; GAMMA with cv = 1 is the same law.
  if (p.distribution === 'DETERMINISTIC' || p.cv !== 1) {
    throw new LimitError('serviceTime.distribution', 'the uniformized distribution needs exponential service (EXPONENTIAL, or GAMMA with cv = 1)');
  }
  const pol = broadcastPolicy(policy, model.M);
  const entry = uniformEntry(model, pol, ev.stationary, ev.levels, opts.entryMinMass);
  const chain = new LazyChain(model, pol, entry);
  const run = survivals(chain, entry, {
    stop: opts.survivalStop ?? 1e-18,
    maxSteps: opts.maxSteps ?? 200_000,
    maxWork: opts.maxWork ?? Infinity,
    dropBelow: opts.dropBelow ?? 1e-20,
  });
  const a = run.a;
  const eps = opts.poissonTail ?? 1e-13;
  const Lambda = chain.rate;
  let sumA = 0;
  for (let n = 0; n < a.length; n++) sumA += a[n];
  const last = a[a.length - 1];
  const lostMass = entry.dropped;
  let lastT = NaN;
  let at = { F: 0, f: 0 };
  const F = (t: number): { F: number; f: number } => {
    if (t !== lastT) {
      lastT = t;
      at = t > 0 ? survivalAt(a, Lambda, t, eps) : { F: 0, f: 0 };
    }
    return at;
  };
  return {
    cdf: (t) => F(t).F,
    density: (t) => F(t).f,
    mean: sumA / Lambda,
    lostMass,
    // Rounding: each a_n is a sum of non-negative products, relative error ~ steps·2^-53.
    cdfError: eps + lostMass + run.dropped + last + a.length * 2.3e-16,
    method: 'uniformization',
    work: a.length - 1,
  };
}

export interface SurvivalRun {
  /** a_0, a_1, … until a_n < stop. */
  readonly a: Float64Array;
  /** Mass dropped from states under `dropBelow`, in all. */
  readonly dropped: number;
  /** Moves stepped, summed over the steps. */
  readonly work: number;
}

/**
 * u_{n+1} = u_n·P with P = I + G/Λ on the transient states, over the states that hold mass only
 * (a list per step, built as the mass spreads): mass under `dropBelow` on a state is dropped, not
 * stepped. The mass sits on a moving front of some thousands of states where the whole chain has
 * hundreds of thousands. The states are expanded here, the step itself is wasm/uniform.ts, on
 * the chain's memory (whose vectors it leaves zero again, for another run).
 */
export function survivals(chain: LazyChain, entry: UniformEntry, o: { stop: number; maxSteps: number; maxWork: number; dropBelow: number }): SurvivalRun {
  let [u, v, cur, next] = [chain.u, chain.v, chain.cur, chain.next];
  let [uAt, vAt, curAt, nextAt] = [chain.at.u, chain.at.v, chain.at.cur, chain.at.next];
  let curLen = 0;
  for (const pt of entry.points) {
    const i = chain.entryState(pt.k, pt.j, pt.serving);
    if (u[i] === 0) cur[curLen++] = i;
    u[i] += pt.mass;
  }
  let a = new Float64Array(1024);
  let mass = 0;
  for (let q = 0; q < curLen; q++) mass += u[cur[q]];
  a[0] = mass;
  let steps = 0;
  const { dropBelow } = o;
  const { kernels, stride, slots } = chain;
  kernels.uniformReset();
  // The states that become worth stepping get their moves first (new targets get ids), then the
  // step reads them: the entry's here, the step lists those it makes.
  for (let q = 0; q < curLen; q++) {
    const i = cur[q];
    if (u[i] >= dropBelow && !chain.isExpanded(i)) chain.expand(i);
  }
  const { todo } = chain;
  while (mass >= o.stop) {
    if (steps >= o.maxSteps) throw new LimitError('latency', `the uniformized route would take too long here (after ${o.maxSteps} steps ${mass.toPrecision(3)} of the mass is still in the system)`);
    curLen = kernels.uniformStep(chain.at.rec, chain.at.table, uAt, vAt, curAt, nextAt, chain.at.todo, curLen, stride, slots, dropBelow);
    const todoLen = kernels.uniformTodo();
    for (let q = 0; q < todoLen; q++) chain.expand(todo[q]);
    mass = kernels.uniformSum(0);
    [u, v, uAt, vAt] = [v, u, vAt, uAt];
    [cur, next, curAt, nextAt] = [next, cur, nextAt, curAt];
    steps++;
    const work = kernels.uniformSum(2);
    if (work > o.maxWork) throw new LimitError('latency', `the uniformized route would take too long here (after ${steps} steps, ${work.toPrecision(3)} moves stepped, over the bound ${o.maxWork.toPrecision(3)}, ${mass.toPrecision(3)} of the mass is still in the system)`);
    if (steps >= a.length) a = grown(a, a.length * 2);
    a[steps] = mass;
  }
  for (let q = 0; q < curLen; q++) u[cur[q]] = 0;
  return { a: a.slice(0, steps + 1), dropped: kernels.uniformSum(1), work: kernels.uniformSum(2) };
}

/** F(t) = 1 − Σ Pois(n; Λt)·a_n and its density f(t) = Λ·Σ Pois(n; Λt)·(a_n − a_{n+1}); a_n = a_last past the steps. */
function survivalAt(a: Float64Array, Lambda: number, t: number, eps: number): { F: number; f: number } {
  const { lo, weights } = poissonWindow(Lambda * t, eps);
  const N = a.length - 1;
  let S = 0;
  let d = 0;
  for (let i = 0; i < weights.length; i++) {
    const n = lo + i;
    const an = a[Math.min(n, N)];
    const an1 = n + 1 <= N ? a[n + 1] : a[N];
    S += weights[i] * an;
    d += weights[i] * (an - an1);
  }
  return { F: 1 - S, f: Lambda * d };
}
