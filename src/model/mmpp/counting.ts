import { arrivalPmf, type ArrivalPmf } from '../arrivals.js';
import { LimitError, throwIfAborted } from '../errors.js';
import type { Distribution } from '../scenario.js';
import { MMPP_LIMITS } from './limits.js';
import { convolve, finishBlock, type CountingBlock, type MatSeq } from './matseq.js';
import { uniformizationRate, type MmppProcess } from './process.js';
import { uniformize, type EventLaw } from './uniformize.js';

export type { CountingBlock } from './matseq.js';

/** The law of one service time T: deterministic, exponential or gamma, by its first two moments. */
export interface ServiceLaw {
  readonly distribution: Distribution;
  readonly mean: number;
  readonly secondMoment: number;
  readonly cv: number;
}

export interface CountingResult {
  /**
   * Per law, P(A(T) = offset + i, J(T) = j' | J(0) = j) at probs[(j·length + i)·M + j'], mixed
   * over the law of T, tails below 1e-15 folded onto the boundary slices (see finishBlock).
   */
  readonly blocks: CountingBlock[];
  /** Per law: the law of the number of rate-θ uniformization events in T (for E[∫A], integral.ts). */
  readonly events: ArrivalPmf[];
  /** Uniformization rate θ = max_j (λ_j + q_j). */
  readonly theta: number;
  /** Largest event count any law needed. */
  readonly steps: number;
}

/** The doubling starts from T/2^m with θT/2^m at most this. */
const DOUBLING_BASE = 16;

/**
 * Counting matrices P_k(T) of an MMPP (dP_k/dt = P_k·D0 + P_{k−1}·D1) for the service laws
 * of every batch size.
 *
 * - Short or random T: uniformization at rate θ (uniformize.ts), one pass shared by all those
 *   laws, with the event-count law P(N_T = n) = Poisson(θT) mixed over T — negative binomial
 *   for a gamma law — from `arrivalPmf`, which starts at the mode and works in ratio form, so
 *   nothing under- or overflows at any θT.
 * - Deterministic T (M > 1): the counting matrices of consecutive intervals convolve
 *   (Markov property), P(T + δ) = P(T)⊛P(δ). The service times are taken in increasing order,
 *   each from the previous one and its increment δ (for a linear fit, δ = perItem: a handful of
 *   slices); the first one, and any long increment, by doubling, P(2t) = P(t)⊛P(t), from
 *   P(t/2^m) with θt/2^m ≤ 16. Direct convolution of non-negative matrices keeps every entry's
 *   relative precision (no FFT, no subtraction) and costs width·width(δ)·M³ per batch size,
 *   against uniformization's ~θT·width·M².
 *
 * With M = 1, K0 = 0 and K1 = 1 in the uniformization, so P_k is the Poisson pmf of arrivals.ts.
 */
export function countingMatrices(proc: MmppProcess, laws: readonly ServiceLaw[], signal?: AbortSignal): CountingResult {
  const theta = uniformizationRate(proc);
  const tooMany = (steps: number): LimitError =>
    new LimitError(
      'arrivalProcess',
      `the counting matrices need ${+steps.toPrecision(6)} uniformization steps (θ·T with θ = ${+theta.toPrecision(6)} /s), over the bound ${MMPP_LIMITS.maxUniformizationSteps}: lower the phase rates or the service times`,
    );
  // The step count's law has mean θ·E[T]: refuse before building a pmf that long.
  for (const l of laws) if (theta * l.mean > MMPP_LIMITS.maxUniformizationSteps) throw tooMany(theta * l.mean);
  const events = laws.map((l) => arrivalPmf(l.distribution, theta, l.mean, l.secondMoment, l.cv));
  let steps = 0;
  for (const w of events) steps = Math.max(steps, w.offset + w.probs.length - 1);
  if (steps > MMPP_LIMITS.maxUniformizationSteps) throw tooMany(steps);
  const sequential = (l: ServiceLaw): boolean => proc.phases > 1 && isDeterministic(l);
  const shared = laws.map((_, i) => i).filter((i) => !sequential(laws[i]));
  const seqs: MatSeq[] = new Array<MatSeq>(laws.length);
  const passed = uniformize(proc, theta, shared.map((i) => events[i]), signal);
  shared.forEach((i, n) => (seqs[i] = passed[n]));
  const ordered = laws
    .map((l, i) => ({ T: l.mean, i }))
    .filter(({ i }) => sequential(laws[i]))
    .sort((a, b) => a.T - b.T);
  let prev: MatSeq | undefined;
  let prevT = 0;
  for (const { T, i } of ordered) {
    throwIfAborted(signal);
    if (!prev) prev = byDoublingFrom(proc, theta, T, signal);
    else if (T > prevT) prev = convolve(prev, byDoublingFrom(proc, theta, T - prevT, signal));
    prevT = T;
    seqs[i] = prev;
  }
  return { blocks: seqs.map(finishBlock), events, theta, steps };
}

function isDeterministic(l: ServiceLaw): boolean {
  return l.distribution === 'DETERMINISTIC' || l.cv === 0;
}

function byDoublingFrom(proc: MmppProcess, theta: number, T: number, signal?: AbortSignal): MatSeq {
  let m = 0;
  while ((theta * T) / 2 ** m > DOUBLING_BASE) m++;
  const base = uniformize(proc, theta, [poissonLaw((theta * T) / 2 ** m)], signal)[0];
  let seq = base;
  for (let i = 0; i < m; i++) {
    throwIfAborted(signal);
    seq = convolve(seq, seq);
  }
  return seq;
}

/**
 * Poisson(μ) for the doubling's base, cut only where a term falls below 1e-30 of the mode
 * (no boundary atoms): its error is doubled m times, so it starts far below the final cut.
 */
function poissonLaw(mu: number): EventLaw {
  const mode = Math.floor(mu);
  const up: number[] = [1];
  for (let k = mode, t = 1; ; k++) {
    t *= mu / (k + 1);
    if (t < 1e-30) break;
    up.push(t);
  }
  const down: number[] = [];
  for (let k = mode, t = 1; k > 0; k--) {
    t *= k / mu;
    if (t < 1e-30) break;
    down.push(t);
  }
  const probs = Float64Array.from([...down.reverse(), ...up]);
  let sum = 0;
  for (const v of probs) sum += v;
  for (let i = 0; i < probs.length; i++) probs[i] /= sum;
  return { offset: mode - down.length, probs };
}
