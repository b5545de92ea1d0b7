import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import type { DetailedEvaluation } from '../policy/evaluate.js';
import { broadcastPolicy, type Policy } from '../policy/policy.js';
import { poissonWindow } from './poissonWindow.js';
import type { ResponseTimeLaw } from './law.js';
import { buildAbsorbingChain, type AbsorbingChain } from './uniformChain.js';
import { uniformEntry } from './uniformEntry.js';

export interface UniformizedOptions {
  /** Poisson mass left out of each P(R > t) sum (default 1e-13). */
  readonly poissonTail?: number;
  /** Stop the steps once the survival a_n is below this (default 1e-18): E[R]'s remainder is then negligible. */
  readonly survivalStop?: number;
  /** Most uniformization steps before giving up (default 200,000). */
  readonly maxSteps?: number;
  /** Refuse (LimitError) a chain with more transitions than this before stepping it (default: no bound). */
  readonly maxTransitions?: number;
  /** Refuse once steps × transitions pass this (default: no bound). */
  readonly maxWork?: number;
}

/**
 * The exact response-time law for exponential service (docs/model.md §9), Poisson or MMPP
 * arrivals: the remaining time after arrival is the absorption time of the CTMC of
 * uniformChain.ts started from the entry law of uniformEntry.ts. Uniformized at rate Λ,
 *   a_n = P(not absorbed after n jumps),  P(R > t) = Σ_n Pois(n; Λt)·a_n,  E[R] = Σ_n a_n / Λ,
 * so one pass of steps serves every t. The stated CDF error is rigorous: the Poisson mass left
 * out (≤ 1e-13), the entry mass dropped, a_n ≤ a_last for steps not taken, and rounding.
 */
export function uniformizedLaw(model: CompiledModel, policy: Policy, ev: DetailedEvaluation, opts: UniformizedOptions = {}): ResponseTimeLaw {
  const p = model.params;
  // EXPONENTIAL validates to cv = 1; GAMMA with cv = 1 is the same law.
  if (p.distribution === 'DETERMINISTIC' || p.cv !== 1) {
    throw new LimitError('serviceTime.distribution', 'the uniformized distribution needs exponential service (EXPONENTIAL, or GAMMA with cv = 1)');
  }
  const pol = broadcastPolicy(policy, model.M);
  const entry = uniformEntry(model, pol, ev.stationary, ev.levels);
  const chain = buildAbsorbingChain(model, pol, entry, opts.maxTransitions === undefined ? Infinity : opts.maxTransitions / 2);
  const transitions = chain.start[chain.n];
  if (opts.maxTransitions !== undefined && transitions > opts.maxTransitions) {
    throw new LimitError('latency', `the uniformized route would take too long here (${transitions} transitions, ${chain.n} states, over the bound ${opts.maxTransitions})`);
  }
  const stepsAllowed = opts.maxWork === undefined ? Infinity : Math.floor(opts.maxWork / Math.max(transitions, 1));
  const a = survivals(chain, opts.survivalStop ?? 1e-18, Math.min(opts.maxSteps ?? 200_000, stepsAllowed));
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
    cdfError: eps + lostMass + last + a.length * 2.3e-16,
    method: 'uniformization',
    work: a.length - 1,
  };
}

/** a_0, a_1, … until a_n < stop: u_{n+1} = u_n·P with P = I + G/Λ on the transient states. */
export function survivals(chain: AbsorbingChain, stop: number, maxSteps: number): Float64Array {
  const { n, stay, start, to, prob } = chain;
  let u = Float64Array.from(chain.initial);
  let v = new Float64Array(n);
  let a = new Float64Array(1024);
  let steps = 0;
  let mass = 0;
  for (let i = 0; i < n; i++) mass += u[i];
  a[0] = mass;
  while (mass >= stop) {
    if (steps >= maxSteps) throw new LimitError('latency', `the uniformized route would take too long here (after ${maxSteps} steps ${mass.toPrecision(3)} of the mass is still in the system)`);
    for (let i = 0; i < n; i++) v[i] = u[i] * stay[i];
    for (let i = 0; i < n; i++) {
      const x = u[i];
      if (x === 0) continue;
      for (let e = start[i]; e < start[i + 1]; e++) v[to[e]] += x * prob[e];
    }
    [u, v] = [v, u];
    mass = 0;
    for (let i = 0; i < n; i++) mass += u[i];
    steps++;
    if (steps >= a.length) {
      const grown = new Float64Array(a.length * 2);
      grown.set(a);
      a = grown;
    }
    a[steps] = mass;
  }
  return a.slice(0, steps + 1);
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
