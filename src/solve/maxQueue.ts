import { arrivalsOf, type ArrivalTable } from '../model/arrivalTable.js';
import { LimitError, type LimitFacts } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import { admissibleScale, estimateQueue, type QueueEstimate } from '../model/queueEstimate.js';
import type { ModelParams } from '../model/scenario.js';
import { tailQuantile, upperQuantile } from '../policy/evaluate.js';
import { levelMass } from '../policy/extension.js';
import { greedyPolicy } from '../policy/policy.js';

/**
 * The search for the truncation level S (docs/model.md §4), for every number of phases: a
 * first S from the greedy policy's queue, the tail check of a solved policy, and the next S
 * when the check fails.
 */

/** The levels within B of the top must carry less than this under the solved policy. */
export const TAIL_MASS_BOUND = 1e-9;
/** Initial S: the greedy policy's queue exceeds it with probability below this. */
const INITIAL_QUANTILE_MASS = 1e-10;

/**
 * A truncation level S from a queue quantile q: room for one more batch above it, since the
 * optimal control limit rarely exceeds B (the tail check grows S when this was not enough).
 */
export function withRoomToWait(q: number, B: number): number {
  return q + B + Math.max(16, B >> 2);
}

/** First S of the automatic search: where the greedy policy's queue has (almost) no mass left, plus room to wait. */
export function initialMaxQueue(p: ModelParams, table: ArrivalTable, tooClose: (e: LimitError) => Error, signal?: AbortSignal): number {
  const B = p.maxBatchSize;
  let q;
  try {
    q = tailQuantile(p, greedyPolicy(B), INITIAL_QUANTILE_MASS, { table, signal });
  } catch (e) {
    if (e instanceof LimitError) throw tooClose(e);
    throw e;
  }
  return Math.max(withRoomToWait(q, B), 32);
}

/** Stationary mass of the levels within B of the top (s > S − B), all phases, out to the extension's end. */
export function tailMassAbove(stationary: Float64Array, M: number, S: number, B: number): number {
  let m = 0;
  for (let x = Math.max(0, S - B + 1) * M; x < stationary.length; x++) m += stationary[x];
  return m;
}

/**
 * Next S after a failed tail check: where the solved policy's own queue (exact, on the extended
 * chain) leaves < 1/100 of the bound, plus room for a batch, and at least a quarter more than
 * now. Doubling instead overshoots by far on deep queues (S = 27,365 → 54,743 where ~30,000 did).
 */
export function grownMaxQueue(S: number, B: number, stationary: Float64Array, M: number): number {
  const q = upperQuantile(stationary.length / M, (s) => levelMass(stationary, M, s), TAIL_MASS_BOUND / 100);
  return Math.max(Math.ceil(1.25 * S) + B, withRoomToWait(q, B));
}

/** A bound on the solve's size: its name (LimitFacts.bound), what it allows, and the estimate's figure it bounds. */
export interface SizeBound {
  readonly name: string;
  readonly allowed: number;
  readonly need: (e: QueueEstimate) => number;
}

/** The core's bounds: S ≤ maxQueue; the model's and the extension's charge ≤ maxBandEntries (chainEntries.ts). */
export const CORE_BOUNDS: readonly SizeBound[] = [
  { name: 'maxQueue', allowed: LIMITS.maxQueue, need: (e) => e.S },
  { name: 'maxBandEntries', allowed: LIMITS.maxBandEntries, need: (e) => Math.max(e.entries, e.extensionEntries) },
];

/** The scenario field a load refusal names: the arrival process under MMPP, the rate otherwise. */
export function loadField(p: ModelParams): 'arrivalProcess' | 'arrivalRate' {
  return p.arrivalProcess ? 'arrivalProcess' : 'arrivalRate';
}

/** What a load refusal blames: the bursts too under MMPP. */
export function loadCause(p: ModelParams): string {
  return p.arrivalProcess ? 'the load or the bursts are too heavy' : 'the load is too close to capacity';
}

/**
 * A refusal driven by the load, with its facts: the bound that bit, how far past it, and an
 * estimate of the largest arrival rate within every bound (model/queueEstimate.ts: the largest
 * rate scale at which each bound's figure of the estimate fits, the one for the bound that bit
 * scaled up to what was observed here where that is more). Under MMPP every phase's rate is
 * scaled in proportion and the estimate is of the mean rate. No estimate when the bound that bit
 * is not among `bounds`, or where none is found.
 */
export function loadRefusal(p: ModelParams, field: string, reason: string, facts: LimitFacts, bounds: readonly SizeBound[] = CORE_BOUNDS): LimitError {
  const rate = arrivalsOf(p).meanRate;
  let scale: number | undefined = bounds.some((b) => b.name === facts.bound) ? 1 : undefined;
  for (const b of bounds) {
    if (scale === undefined) break;
    const observed = facts.bound === b.name ? (facts.excess ?? 0) * b.allowed : 0;
    const fits = admissibleScale(p, b.need, b.allowed, observed);
    scale = fits === undefined ? undefined : Math.min(scale, fits);
  }
  if (scale === undefined || !(scale < 1)) return new LimitError(field, reason, facts);
  const admissibleRate = rate * scale;
  const B = p.maxBatchSize;
  const load = (r: number) => `${((100 * r * p.meanService[B]) / B).toPrecision(3)} %`;
  const what = p.arrivalProcess ? 'a mean arrival rate (every phase scaled in proportion)' : 'an arrivalRate';
  return new LimitError(field, `${reason}; ${what} up to about ${admissibleRate.toPrecision(3)} /s (load ${load(admissibleRate)} of capacity, against ${load(rate)} here) would fit, by estimate`, {
    ...facts,
    admissibleRate,
  });
}

/**
 * How far past a bound the estimate (model/queueEstimate.ts) must put a scenario for the
 * automatic search to refuse it before solving. For one phase the estimate (a Cramér root) was
 * within ~10 % of where the search meets the bound over deterministic, exponential and gamma
 * families near capacity (docs/model.md §4): past 1.5× the solve would meet the bound too,
 * seconds later. Under MMPP arrivals (the Cramér root with the tilted generator's Perron root,
 * weighted by the rarest phase) the estimated S was 0.85–1.01× the search's first S on balanced,
 * slow, rare and fast-switching bursts (test/solve/earlyRefusal.test.ts).
 */
export const EARLY_REFUSAL_MARGIN = 1.5;

/** Refuses before any solve a scenario whose estimated size passes a core bound by EARLY_REFUSAL_MARGIN (the automatic search only). */
export function refuseFarPastBounds(p: ModelParams, bounds: readonly SizeBound[] = CORE_BOUNDS): void {
  const e = estimateQueue(p);
  for (const b of bounds) {
    const need = b.need(e);
    if (!(need > EARLY_REFUSAL_MARGIN * b.allowed)) continue;
    const what = b.name === 'maxQueue' ? `S = ${Math.round(need)}` : `${need.toPrecision(3)} entries`;
    const reason = `is too close to capacity for the solver's bounds (by estimate before solving: ${what}, ${(need / b.allowed).toPrecision(3)}× the bound ${b.name} = ${b.allowed}: ${loadCause(p)})`;
    throw loadRefusal(p, loadField(p), reason, { bound: b.name, excess: need / b.allowed }, bounds);
  }
}
