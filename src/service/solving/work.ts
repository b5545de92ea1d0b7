import { CASCADE_STAGE_COST } from '../../model/arrivalTable.js';
import { arrivalPmf } from '../../model/arrivals.js';
import { geometricEntries, GEOMETRIC_REFERENCE_CAP } from '../../model/chainEntries.js';
import { solveDense } from '../../model/dense.js';
import { LIMITS } from '../../model/limits.js';
import type { MmppProcess } from '../../model/mmpp/process.js';
import type { ValidatedScenario } from '../../model/scenario.js';
import { Code, ServiceError } from '../rpc/status.js';

/** What one scenario's solve is estimated to hold, before any of it is built. */
export interface WorkEstimate {
  /** States (S + 1)·M: the explicit S, or an estimate of the automatic one. */
  readonly states: number;
  /** Band width of the model's chain (largest jumps down and up, plus one). */
  readonly band: number;
  /**
   * The entries every sweep and evaluation works through, as compile.ts charges them
   * (model/chainEntries.ts): states × band, or for one phase and exponential service the
   * geometric reduction's (about states × 3B, whatever the band).
   */
  readonly entries: number;
}

/** Probability mass the automatic S leaves above it under the greedy policy (solve/maxQueue.ts). */
const TAIL = 1e-10;

/**
 * The size of a scenario's model, estimated in microseconds and without solving: S explicit, or
 * where the greedy policy's queue has (almost) no mass left, read off the diffusion (Gaussian)
 * approximation of the queue at batch epochs, P(Q > q) ≈ exp(−2(B − m)q / v), with m and v the mean
 * and variance of the arrivals during a full batch (the arrivals' asymptotic dispersion for MMPP);
 * the band from the arrival-count law of the shortest and longest batch at the fastest phase
 * rate. The solve itself may still grow S (its tail check); maxStates bounds that. One phase with
 * exponential service whose count laws are long enough for the cascade (arrivalTable.ts, here the
 * mean of the shortest and longest batch's laws) is charged as the geometric reduction.
 */
export function estimateWork(s: ValidatedScenario): WorkEstimate {
  const p = s.params;
  const B = p.maxBatchSize;
  const proc = p.arrivalProcess;
  const M = proc?.phases ?? 1;
  const lambda = proc?.meanRate ?? p.arrivalRate;
  const peak = proc ? Math.max(...proc.rates) : p.arrivalRate;
  const lawOf = (b: number) => arrivalPmf(p.distribution, peak, p.meanService[b], p.secondMoment[b], p.cv);
  const [first, last] = [lawOf(1), lawOf(B)];
  const reach = (pmf: typeof first, b: number): number => pmf.offset + pmf.probs.length - 1 - b;
  const upReach = Math.max(1, reach(first, 1), reach(last, B));
  const band = (Math.max(B, 2) + 1) * M + (upReach + 1) * M - 1;
  let S = s.solver.maxQueue;
  if (!(S > 0)) {
    const lB = p.meanService[B];
    const m = lambda * lB;
    const v = m * dispersion(proc) + lambda * lambda * Math.max(0, p.secondMoment[B] - lB * lB);
    const q = m < B ? (Math.log(1 / TAIL) * v) / (2 * (B - m)) : LIMITS.maxQueue;
    S = Math.min(LIMITS.maxQueue, Math.max(32, Math.ceil(q) + B + Math.max(16, B >> 2)));
  }
  const states = (S + 1) * M;
  const geometric = M === 1 && p.distribution !== 'DETERMINISTIC' && p.cv === 1 && CASCADE_STAGE_COST < (first.probs.length + last.probs.length) / 2;
  return { states, band, entries: geometric ? geometricEntries(states, Math.max(B, 2), B, GEOMETRIC_REFERENCE_CAP) : states * band };
}

/**
 * Asymptotic index of dispersion of the arrival counts, lim Var N(t) / E N(t): 1 for Poisson;
 * for an MMPP 1 + 2·π·Λ·Z·(λ − λ̄)/λ̄ with Z = (1π − Q)⁻¹ the fundamental matrix.
 */
export function dispersion(proc: MmppProcess | undefined): number {
  if (!proc || proc.phases === 1) return 1;
  const M = proc.phases;
  const a = new Float64Array(M * M);
  for (let i = 0; i < M; i++) for (let j = 0; j < M; j++) a[i * M + j] = proc.stationary[j] - proc.generator[i * M + j];
  const z = solveDense(a, Float64Array.from(proc.rates, (r) => r - proc.meanRate), M);
  let sum = 0;
  for (let j = 0; j < M; j++) sum += proc.stationary[j] * proc.rates[j] * z[j];
  return Math.max(1, 1 + (2 * sum) / proc.meanRate);
}

/** Refuses a call whose estimated work passes the server's bound, before any of it starts. */
export function checkWork(entries: number, maxWorkPerCall: number, field: string, what: string): void {
  if (entries > maxWorkPerCall) {
    throw new ServiceError(
      Code.RESOURCE_EXHAUSTED,
      `${field}: ${what} an estimated ${entries.toExponential(3)} band entries (states × band width${field === 'grid' || field.startsWith('list') ? ', summed over the scenarios' : ''}), above this server's maxWorkPerCall = ${maxWorkPerCall.toExponential(3)}`,
      field,
    );
  }
}
