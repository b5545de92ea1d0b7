import { CASCADE_STAGE_COST } from './arrivalTable.js';
import { arrivalPmf } from './arrivals.js';
import { bandEntries, censoredEntries, geometricEntries, geometricStateEntries, GEOMETRIC_REFERENCE_CAP } from './chainEntries.js';
import { LIMITS } from './limits.js';
import { tiltedPerronRoot } from './mmpp/perron.js';
import type { ModelParams } from './scenario.js';

/**
 * What a scenario's solve will hold, estimated in milliseconds and without solving: for the
 * service's admission (service/solving/work.ts) and for the largest admissible load a refusal
 * names (solve/maxQueue.ts loadRefusal). The queue at batch epochs has a geometric tail,
 * P(Q > q) ≈ C·exp(−θq) (C = tailWeight), θ the decay of a random walk whose steps are the
 * arrivals during a full batch less B: for one phase the Cramér root, E[exp(θK)] = exp(θB) with K's generating function
 * in closed form (Poisson counts mixed over a deterministic or gamma service time); under MMPP
 * the same root with the Perron root of the tilted generator in place of λ·(e^θ − 1)
 * (mmpp/perron.ts), the exact decay of the (level, phase) chain's tail. The band comes from
 * the count laws of the shortest and the longest batch at the fastest phase rate; the charges
 * are those of compile.ts and extension.ts (chainEntries.ts).
 */
export interface QueueEstimate {
  /** S: the explicit one, or where the greedy queue keeps < 1e-10 above it, plus room for a batch (maxQueue.ts). */
  readonly S: number;
  /** States (S + 1)·M. */
  readonly states: number;
  /** Band width of the model's chain (largest jumps down and up, plus one), in flat indices. */
  readonly band: number;
  /** Whether the evaluations go by the geometric reduction (one phase, exponential service, long laws). */
  readonly geometric: boolean;
  /** What compile.ts charges at S. */
  readonly entries: number;
  /** The levels the exact evaluation of the solved policy extends to (extension.ts), and what they hold. */
  readonly extensionLevels: number;
  readonly extensionEntries: number;
}

/** Mass the automatic S leaves above it under the greedy policy (maxQueue.ts), and what the extension's top may hold (extension.ts). */
const S_TAIL = 1e-10;
const EXTENSION_TAIL = 1e-13;

/** The estimate for the scenario with every arrival rate times `scale` (1: as given), S explicit when `maxQueue` > 0. */
export function estimateQueue(p: ModelParams, scale = 1, maxQueue = 0): QueueEstimate {
  const B = p.maxBatchSize;
  const proc = p.arrivalProcess;
  const M = proc?.phases ?? 1;
  const peak = (proc ? Math.max(...proc.rates) : p.arrivalRate) * scale;
  const lawOf = (b: number) => arrivalPmf(p.distribution, peak, p.meanService[b], p.secondMoment[b], p.cv);
  const [first, last] = [lawOf(1), lawOf(B)];
  const reach = (pmf: typeof first, b: number): number => pmf.offset + pmf.probs.length - 1 - b;
  const upReach = Math.max(1, reach(first, 1), reach(last, B));
  const lo = (Math.max(B, 2) + 1) * M - 1;
  const hi = (upReach + 1) * M - 1;
  const theta = tailDecay(p, scale);
  const weight = tailWeight(p);
  const quantile = (mass: number) => (theta > 0 ? Math.max(0, Math.log(weight / mass)) / theta : Infinity);
  const S = maxQueue > 0 ? maxQueue : Math.min(LIMITS.maxQueue, Math.max(32, Math.ceil(quantile(S_TAIL)) + B + Math.max(16, B >> 2)));
  const states = (S + 1) * M;
  const geometric = M === 1 && p.distribution !== 'DETERMINISTIC' && p.cv === 1 && CASCADE_STAGE_COST < (first.probs.length + last.probs.length) / 2;
  // The extension starts 2 windows past the table (5 with several phases) and is accepted once
  // its top window holds < 1e-13 (extension.ts); a window is the largest batch plus the largest jump up.
  const window = B + upReach;
  const extensionLevels = Math.min(Number.MAX_SAFE_INTEGER, Math.ceil(Math.max(S + 1 + (M > 1 ? 5 : 2) * window, quantile(EXTENSION_TAIL) + window)));
  const extensionEntries = geometric
    ? extensionLevels * geometricStateEntries(B, B) + censoredEntries(GEOMETRIC_REFERENCE_CAP, Math.max(B, 2))
    : extensionLevels * (window + 1) * M * M;
  return { S, states, band: lo + hi + 1, geometric, entries: geometric ? geometricEntries(states, B, B, GEOMETRIC_REFERENCE_CAP) : bandEntries(states, lo, hi), extensionLevels, extensionEntries };
}

/**
 * θ of the queue's tail at batch epochs (see QueueEstimate), the rates times `scale`; 0 when the
 * load is not below capacity. The Cramér root θ > 0 of log E[exp(σ(θ)·T_B)] = θ·B, σ(θ) the
 * arrivals' growth rate (mmpp/perron.ts: λ·(e^θ − 1) for one phase, the Perron root of
 * Q + (e^θ − 1)·Λ under MMPP), T_B deterministic or gamma. The left side is convex in θ (a convex
 * increasing function of a convex one), 0 at 0 with slope λ̄·l(B) − B < 0: one root, by bisection.
 */
export function tailDecay(p: ModelParams, scale = 1): number {
  return batchDecay(p, p.maxBatchSize, scale);
}

/** θ as tailDecay, for a tail that serves batches of B (≤ maxBatchSize) at every epoch: a policy's extension past its table (policy/extension.ts). */
export function batchDecay(p: ModelParams, B: number, scale = 1): number {
  const proc = p.arrivalProcess;
  const lambda = (proc?.meanRate ?? p.arrivalRate) * scale;
  const l = p.meanService[B];
  const m = lambda * l;
  if (!(m < B)) return 0;
  const rates = proc && proc.phases > 1 ? Float64Array.from(proc.rates, (r) => r * scale) : undefined;
  const growth = (t: number): number => (rates ? tiltedPerronRoot(proc!.generator, rates, t) : lambda * Math.expm1(t));
  const deterministic = p.distribution === 'DETERMINISTIC' || p.cv === 0;
  const shape = deterministic ? Infinity : 1 / (p.cv * p.cv);
  // log E[exp(u·T)], T deterministic or gamma(shape, l/shape): infinite from u = shape/l on.
  const logMgf = (u: number): number => (deterministic ? u * l : u * l < shape ? -shape * Math.log1p(-(u * l) / shape) : Infinity);
  const excess = (t: number): number => logMgf(growth(t)) - t * B;
  // Gamma: σ(θ) ≥ λ̄·(e^θ − 1) (σ is convex in e^θ − 1 with slope λ̄ at 0), so the MGF is infinite here.
  let hi = deterministic ? 1 : Math.log1p(shape / m);
  while (deterministic && excess(hi) < 0) hi *= 2;
  let lo = 0;
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (excess(mid) < 0) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The tail's weight C in P(Q > q) ≈ C·exp(−θq): 1 for one phase; under MMPP the smallest phase
 * probability min_j π_j. The tail is driven by the phases that overload the server, and its
 * weight is about their share of time: where a rare burst drives it (π = 1e-4) the search's S is
 * ln(π/mass)/θ, 0.6× what C = 1 gives; with balanced phases C lies between min π and 1
 * (docs/model.md §4.3). The lower end keeps the estimate from overstating a queue, which matters
 * for refusing on it before solving (solve/maxQueue.ts refuseFarPastBounds).
 */
export function tailWeight(p: ModelParams): number {
  const proc = p.arrivalProcess;
  if (!proc || proc.phases === 1) return 1;
  return Math.min(1, ...proc.stationary);
}

/**
 * The largest rate scale in (0, 1) at which `need` (a figure of the estimate: S, or entries) stays
 * within `allowed`, the estimate scaled up to agree with what was `observed` at scale 1 where that
 * is more (never down: an observation may only bound the need from below). Undefined if even a
 * thousandth of the load does not fit. The need grows with the load (S and the band both do).
 */
export function admissibleScale(p: ModelParams, need: (e: QueueEstimate) => number, allowed: number, observed = 0): number | undefined {
  const factor = Math.max(1, observed / need(estimateQueue(p)));
  const fits = (scale: number) => factor * need(estimateQueue(p, scale)) <= allowed;
  let lo = 1e-3;
  if (!fits(lo)) return undefined;
  let hi = 1;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
