import type { GeometricCascade } from './arrivalTable.js';
import { LimitError } from './errors.js';
import { LIMITS } from './limits.js';

/**
 * How many entries (f64 words) the exact evaluation of a policy really holds: what
 * LIMITS.maxBandEntries bounds (docs/model.md §3.5 and §4.3). Two reductions:
 *
 *  - the banded one (policy/chain.ts): the band of the chain, states × (lo + hi + 1), the
 *    width set by the longest count law. Charged as the band, as ever;
 *  - the geometric one (policy/geometricFactor.ts: one phase, exponential service), which
 *    never holds the band: its wasm memory holds per state its row left of the diagonal (lo),
 *    two entries per class (the multiplier and the class sum) and eleven more (the pivot, the
 *    three tail coefficients, multipliers and columns, the action and class as two i32), and
 *    per class and batch size a few constants; plus the explicit censored chain of the
 *    states 0..ref, whose memory (policy/chainMemory.ts) holds its band and the band's
 *    reduction, (ref + 1)·(2·(lo' + ref + 1) + max(lo', ref) + 10), lo' = min(lo, ref).
 *    The reference is capped (GEOMETRIC_REFERENCE_CAP), so this part stays small.
 *
 * The figures here are what those files allocate; a change there is a change here.
 */

/**
 * Largest reference state of the geometric reduction. The censored chain of the states below
 * it is explicit and dense to its right (every state below can reach every one above, up to the
 * reference), so its size and its reduction grow with the square of the reference: at 512 and
 * B = 64 it holds under a million entries. A mode above it is replaced by the cap (modelChain.ts).
 */
export const GEOMETRIC_REFERENCE_CAP = 512;

/** Whether the evaluations of a model go by the geometric reduction (policy/geometricChain.ts hasGeometricLaws: its policies serve at S). */
export function evaluatedWithoutBand(model: { readonly M: number; readonly cascade?: GeometricCascade }): boolean {
  return model.M === 1 && model.cascade?.shape === 1;
}

/** Entries of a dense band of n states reaching lo below and hi above the diagonal. */
export function bandEntries(n: number, lo: number, hi: number): number {
  return n * (lo + hi + 1);
}

/**
 * Where the geometric reduction meets a zero pivot it cannot step round, the dense band is the
 * fallback; the model or extension was bounded by the reduction's charge, so the band may not
 * fit: then a refusal on `field`, `what` saying which chain.
 */
export function checkBandFallback(field: string, what: string, n: number, lo: number, hi: number): void {
  const entries = bandEntries(n, lo, hi);
  if (entries <= LIMITS.maxBandEntries) return;
  throw new LimitError(field, `${what} needs the band here (${entries} entries), over the bound maxBandEntries = ${LIMITS.maxBandEntries}`, {
    bound: 'maxBandEntries',
    excess: entries / LIMITS.maxBandEntries,
  });
}

/** Entries the explicit censored chain of the states 0..ref holds (geometricFactor.ts censoredChain, in its chain memory). */
export function censoredEntries(ref: number, lo: number): number {
  const m = ref + 1;
  const below = Math.max(1, Math.min(lo, ref));
  const above = Math.max(1, ref);
  return m * (2 * (below + above + 1) + Math.max(below, above) + 10);
}

/** Entries per state of the geometric reduction (geometricFactor.ts factorGeometric's layout): its row left of the diagonal, two per class, eleven more. */
export function geometricStateEntries(lo: number, classes: number): number {
  return Math.max(lo, 2) + 2 * classes + 11;
}

/** Entries of that layout not per state: the header word, 1 − q_b per batch size, q, c·q^b and the reach (i32) per class. */
function geometricFixedEntries(B: number, classes: number): number {
  return 1 + (B + 1) + 2 * classes + Math.ceil(classes / 2);
}

/** Entries the geometric reduction of n states holds: per state as above, the constants, and the censored chain of the states 0..ref. */
export function geometricEntries(n: number, lo: number, classes: number, ref: number, B = lo): number {
  return n * geometricStateEntries(lo, classes) + geometricFixedEntries(B, classes) + censoredEntries(Math.min(ref, n - 1), Math.max(lo, 2));
}

/** The most states the geometric reduction may have within `bound` entries (its reference at most the cap). */
export function geometricStatesWithin(bound: number, lo: number, classes: number, B: number): number {
  const fixed = geometricFixedEntries(B, classes) + censoredEntries(GEOMETRIC_REFERENCE_CAP, Math.max(lo, 2));
  return Math.max(0, Math.floor((bound - fixed) / geometricStateEntries(lo, classes)));
}

/** What a model's evaluation holds: the figure charged against the bound, and how it was counted. */
export interface ChainCharge {
  readonly entries: number;
  /** 'geometric': the reduction without the band; 'band': the dense band. */
  readonly counted: 'geometric' | 'band';
}

/**
 * The charge of evaluating policies on the model cut at S ((S + 1)·M states, band lo/hi in flat
 * indices): the geometric reduction's where it applies (its classes: the batch sizes the model
 * may serve; its reference at most the cap), else the band.
 */
export function modelCharge(
  model: { readonly S: number; readonly M: number; readonly B: number; readonly cascade?: GeometricCascade },
  band: { readonly lo: number; readonly hi: number },
  classes = model.B,
): ChainCharge {
  const n = (model.S + 1) * model.M;
  if (evaluatedWithoutBand(model)) return { entries: geometricEntries(n, model.B, classes, GEOMETRIC_REFERENCE_CAP), counted: 'geometric' };
  return { entries: bandEntries(n, band.lo, band.hi), counted: 'band' };
}
