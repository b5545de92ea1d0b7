import type { CompiledModel } from '../model/compile.js';
import { throwIfAborted } from '../model/errors.js';
import { Layout, releaseScratch, scratchFor } from '../wasm/kernels.js';

/** Relative difference under which two action values count as tied. */
const TIE = 1e-12;
/** lookAheadAlongWaits leaves the levels within this of S alone. */
const TOP_GUARD = 4;

/**
 * One Bellman step of the transformed MDP (docs/model.md §3) at relative values h (flat,
 * s-major, see CompiledModel):
 *   gap[x]    = min_a [ c̃(x,a) + (τ/y(x,a))·(E_a h(x) − h(x)) ]   (= V_{n+1}(x) − h(x))
 *   policy[x] = the minimising action.
 * With `keep`, an action of `keep` within a relative 1e-12 of the minimum is kept, so that
 * policy iteration never cycles between equally good actions.
 *
 * Each serve sum is added term by term in the order of its terms, whatever the grouping: with
 * one phase unrolled by four; with several, the phases of a level read the same window of h
 * and are summed four at a time in one pass over it (a phase past M repeats the last one),
 * each in its own accumulator, so that the passes are not held up by one chain of additions.
 * When the count laws are sums of geometric laws (`model.cascade`: exponential service, gamma
 * with an integer shape) the same sums come from a backward recurrence in s instead, O(shape)
 * per state and action (docs/model.md §3.2); everything else in the step is shared.
 * On the direct path, a sum that bounds from h's level differences prove to lie above the best
 * serve already found at its state is not formed (§3.2, "Skipped serve sums"): the batch sizes
 * go largest first, and the result is the same to the bit as forming every sum.
 * The loops are wasm/bellman.ts (compiled ahead of time: a fresh process does not interpret
 * them); the model's arrays and h are copied into the thread's scratch memory, at a small
 * fraction of the step's cost, and the model's stay there for the next step on it.
 */
export function bellmanStep(
  model: CompiledModel,
  h: Float64Array,
  gap: Float64Array,
  policy: Int32Array,
  keep?: Int32Array,
  /** When given, receives each state's wait value (Infinity at S), for lookAheadAlongWaits. */
  waits?: Float64Array,
  /** Checked before each batch size's pass: one sweep over a large model takes a good part of a second. */
  signal?: AbortSignal,
): void {
  serveStep(model, h, gap, policy, keep, waits, signal, true);
}

/** Serve sums formed and skipped by one step (one per state, phase and batch size). */
export interface StepCounts {
  readonly formed: number;
  readonly skipped: number;
}

/**
 * bellmanStep, with the skipping of serve sums that cannot be the minimum (docs/model.md §3.2,
 * "Skipped serve sums") on or off: the result is the same to the bit either way; off is for
 * the tests and benchmarks that compare the two.
 */
export function serveStep(
  model: CompiledModel,
  h: Float64Array,
  gap: Float64Array,
  policy: Int32Array,
  keep: Int32Array | undefined,
  waits: Float64Array | undefined,
  signal: AbortSignal | undefined,
  prune: boolean,
): StepCounts {
  const { S, B, M, tau, costSlope, waitRate, phaseRate, kappa, sojourn } = model;
  const { pmfOffset, pmfStart, pmfLength, pmf, tailFirstState, tailStart, tailCoef, serves, cascade } = model;
  const n = (S + 1) * M;
  // The model's arrays first (the same place for every call on this model), then this call's.
  const lay = new Layout();
  const m = {
    waitRate: lay.f64(M),
    phaseRate: lay.f64(M * M),
    kappa: lay.f64(kappa.length),
    sojourn: lay.f64(sojourn.length),
    pmf: lay.f64(cascade ? 0 : pmf.length),
    tailCoef: lay.f64(tailCoef.length),
    ratio: lay.f64(cascade ? B + 1 : 0),
    complement: lay.f64(cascade ? B + 1 : 0),
    pmfOffset: lay.i32(B + 1),
    pmfStart: lay.i32(B + 1),
    pmfLength: lay.i32(B + 1),
    tailFirstState: lay.i32(B + 1),
    tailStart: lay.i32(B + 1),
    serves: lay.i32(B + 1),
  };
  const at = {
    h: lay.f64(n),
    gap: lay.f64(n),
    waits: waits ? lay.f64(n) : 0,
    serveValue: lay.f64(n),
    keepValue: lay.f64(n),
    stages: lay.f64(cascade ? 2 * cascade.shape : 0),
    work: lay.f64(cascade ? 0 : 4 * M + M * (maxLength(pmfLength) + 1)),
    queue: lay.i32(cascade ? 0 : 2 * n),
    serve: lay.i32(n),
    policy: lay.i32(n),
    keep: keep ? lay.i32(n) : 0,
  };
  const { scratch: mem, kept } = scratchFor(lay.bytes, model);
  const buf = mem.buffer;
  if (!kept) {
    new Float64Array(buf, m.waitRate, M).set(waitRate);
    new Float64Array(buf, m.phaseRate, M * M).set(phaseRate);
    new Float64Array(buf, m.kappa, kappa.length).set(kappa);
    new Float64Array(buf, m.sojourn, sojourn.length).set(sojourn);
    if (cascade) {
      new Float64Array(buf, m.ratio, B + 1).set(cascade.ratio);
      new Float64Array(buf, m.complement, B + 1).set(cascade.complement);
    } else {
      new Float64Array(buf, m.pmf, pmf.length).set(pmf);
    }
    new Float64Array(buf, m.tailCoef, tailCoef.length).set(tailCoef);
    new Int32Array(buf, m.pmfOffset, B + 1).set(pmfOffset);
    new Int32Array(buf, m.pmfStart, B + 1).set(pmfStart);
    new Int32Array(buf, m.pmfLength, B + 1).set(pmfLength);
    new Int32Array(buf, m.tailFirstState, B + 1).set(tailFirstState);
    new Int32Array(buf, m.tailStart, B + 1).set(tailStart);
    new Int32Array(buf, m.serves, B + 1).set(serves);
  }
  new Float64Array(buf, at.h, n).set(h.subarray(0, n));
  if (keep) new Int32Array(buf, at.keep, n).set(keep.subarray(0, n));
  const k = mem.kernels;
  const formed0 = k.bellmanCount(1);
  const skipped0 = k.bellmanCount(0);
  k.bellmanModel(S, B, M, tau, costSlope, m.kappa, m.sojourn, m.tailFirstState, m.tailStart, m.tailCoef, m.serves, at.h, at.keep, at.serveValue, at.keepValue, at.serve);
  if (cascade) {
    for (let b = 1; b <= B; b++) {
      throwIfAborted(signal);
      k.bellmanCascade(m.ratio, m.complement, cascade.shape, at.stages, b);
    }
  } else {
    // Largest batch first: where serving everything is best, its value is the bar the others
    // must provably clear to be skipped.
    for (let b = B; b >= 1; b--) {
      throwIfAborted(signal);
      k.bellmanServes(m.pmfOffset, m.pmfStart, m.pmfLength, m.pmf, b, prune ? 1 : 0, at.work, at.queue);
    }
  }
  k.bellmanFinish(m.waitRate, m.phaseRate, at.gap, at.policy, at.waits);
  gap.set(new Float64Array(buf, at.gap, n));
  policy.set(new Int32Array(buf, at.policy, n));
  if (waits) waits.set(new Float64Array(buf, at.waits, n));
  const counts = { formed: k.bellmanCount(1) - formed0, skipped: k.bellmanCount(0) - skipped0 };
  releaseScratch(mem);
  return counts;
}

function maxLength(lengths: Int32Array): number {
  let L = 0;
  for (const l of lengths) L = Math.max(L, l);
  return L;
}

/**
 * A policy-improvement lookahead along the wait transitions (s, j) → (s+1, j).
 *
 * The plain improvement step judges "wait at (s, j)" by h(s+1, j), the value of the *old*
 * action there; when the better policy waits through a run of levels (say up to a batch size
 * the service table makes cheap), plain policy iteration discovers that run one level per
 * iteration. Going down from S, this pass credits waiting at (s, j) with the improvement
 * already found at (s+1, j) (δ = gap − g, turned from a rate over the sojourn there into one
 * over the wait's arrival intensity λ_j), so a whole run flips in one step. `policy` and `gap`
 * (from bellmanStep at h with `waits`) are updated in place; returns whether anything changed.
 * The result is a heuristic candidate: policy iteration keeps it only if it lowers g.
 */
export function lookAheadAlongWaits(
  model: CompiledModel,
  gap: Float64Array,
  waits: Float64Array,
  policy: Int32Array,
  gain: number,
): boolean {
  const { S, M, rates, sojourn } = model;
  let changed = false;
  // Only below B, where a wait for a fuller batch can pay (control limits), and never next to
  // S, whose values the tail extrapolation couples: candidate waits in deep states made
  // chains whose values lost all digits.
  for (let s = Math.min(S - TOP_GUARD, model.B - 1); s >= 0; s--) {
    for (let j = 0; j < M; j++) {
      const x = s * M + j;
      const above = gap[x + M] - gain;
      if (!(above < 0)) continue;
      const ahead = waits[x] + rates[j] * sojourn[policy[x + M] * M + j] * above;
      if (ahead < gap[x] - TIE * Math.abs(gap[x]) && policy[x] !== 0) {
        gap[x] = ahead;
        policy[x] = 0;
        changed = true;
      } else if (policy[x] === 0 && ahead < gap[x]) {
        gap[x] = ahead; // already waiting: carry the improvement further down
      }
    }
  }
  return changed;
}

/** Odoni bounds of a Bellman step: min and max of the gap. */
export function gapBounds(gap: Float64Array): { lower: number; upper: number } {
  let lower = Infinity;
  let upper = -Infinity;
  for (let s = 0; s < gap.length; s++) {
    const v = gap[s];
    if (v < lower) lower = v;
    if (v > upper) upper = v;
  }
  return { lower, upper };
}

/** Whether the certified interval is tight enough: M − m ≤ ε·|m|. */
export function boundsConverged(lower: number, upper: number, tolerance: number): boolean {
  return upper - lower <= tolerance * Math.abs(lower);
}
