import { throwIfAborted } from '../errors.js';
import { aggregate } from './aggregate.js';
import { eachState, PolicyChain } from './chain.js';
import type { ClassesModel } from './compile.js';

/** The law is returned once one step π ← π·P̃ moves it by less than this (L1): the residual ‖π·P̃ − π‖₁ of the normalised law. */
const STEADY = 1e-13;
/** Passes over the transitions (each costs about one step π·P̃), all methods together. */
const MAX_STEPS = 2_000_000;
/** Gauss–Seidel gives way to power iteration when its residual has not halved in this many sweeps. */
const STALL = 400;
/** A sweep that cut the residual by less than this factor is followed by an aggregation step. */
const SLOW = 0.7;

/**
 * The stationary law π̃ of the transformed chain under a policy: the long-run share of time in
 * each state (π̃ ∝ ν·y for the embedded law ν). Arrivals past a top are held at the top (lumped):
 * the result is read only once the mass near every top is below the tail bound, where the
 * difference to the extrapolated model is of that order. From the uniform law or `start`.
 *
 * Power iteration mixes slowly here (every state keeps ≥ 1 − τ/y on itself, and a loaded queue
 * drains a few levels a step: 4545 steps at S = (40, 40), ρ = 0.97). So Gauss–Seidel sweeps on the
 * balance equations, with an aggregation–disaggregation step (aggregate.ts) before a sweep where
 * the last one converged slowly, until the sweeps' residual is below STEADY (about 100 passes
 * there); then one step π·P̃ measures the residual as power iteration did, and is the result.
 * Power iteration is the fallback (a state that never leaves, a stall) and the finish if that
 * check fails. `steps` counts the passes over the transitions.
 */
export function stationaryLaw(model: ClassesModel, policy: Int32Array, opts: { readonly signal?: AbortSignal; readonly start?: Float64Array } = {}): { pi: Float64Array; steps: number } {
  const { states } = model;
  let pi: Float64Array = new Float64Array(states);
  const start = opts.start?.length === states ? opts.start : undefined;
  if (start) pi.set(start);
  else pi.fill(1 / states);
  const chain = new PolicyChain(model, policy);
  let next: Float64Array = new Float64Array(states);
  let steps = 0;
  /** π ← π·P̃ normalised; returns the L1 move. */
  const power = (): number => {
    next.fill(0);
    eachState(model, (x, n) => chain.scatter(x, n, pi[x], next));
    let total = 0;
    for (let x = 0; x < states; x++) total += next[x];
    let moved = 0;
    for (let x = 0; x < states; x++) {
      next[x] /= total;
      moved += Math.abs(next[x] - pi[x]);
    }
    [pi, next] = [next, pi];
    steps++;
    return moved;
  };
  // A warm start that is already stationary is done after the one step, as before.
  if (start && power() < STEADY) return { pi, steps };
  // A failed check (rounding between the sweeps' residual and the product's) sweeps on to a tighter target, a few times.
  for (let target = STEADY / 2, tries = 0; tries < 3; target /= 8, tries++) {
    const gs = gaussSeidel(chain, pi, target, MAX_STEPS - steps, opts.signal);
    steps += gs.steps;
    if (gs.pi) pi = gs.pi;
    if (!gs.converged) break;
    throwIfAborted(opts.signal);
    if (power() < STEADY) return { pi, steps };
  }
  for (; steps < MAX_STEPS; ) {
    if ((steps & 63) === 0) throwIfAborted(opts.signal);
    if (power() < STEADY) return { pi, steps };
  }
  return { pi, steps };
}

/**
 * Gauss–Seidel on π_y·(1 − P̃(y, y)) = Σ_{x≠y} π_x·P̃(x, y), by the forward product in flat order:
 * acc[y] collects what reaches y; when the sweep comes to y it holds the flows of this sweep's
 * x < y and of the last sweep's x > y (those came after y then), which is Gauss–Seidel's sum.
 * y's own share is taken out at once, so after a sweep acc holds the flows of x > y alone, and
 * the residual of the sweep's π is, exactly up to rounding,
 *   (π·P̃ − π)_y = acc_end[y] − acc_start[y] + acc_read[y] − (1 − P̃(y, y))·π_y
 * whatever acc held at the start: the aggregation may rescale it rather than form it anew.
 * Converged once that residual (L1, of π normalised) is below target; otherwise (a stall, the
 * budget of passes spent) the last law, or none (a state that never leaves, a non-finite sum).
 */
function gaussSeidel(chain: PolicyChain, start: Float64Array, target: number, budget: number, signal?: AbortSignal): { pi?: Float64Array; converged: boolean; steps: number } {
  const { model } = chain;
  const { C, states } = model;
  const pi = Float64Array.from(start);
  const acc = new Float64Array(states);
  const before = new Float64Array(states);
  const leave = new Float64Array(states);
  // 1 − P̃(x, x) as the forward product deposits P̃(x, x), so that the fixed point is the product's.
  eachState(model, (x, n) => {
    before[x] = 0;
    chain.scatter(x, n, 1, before);
    leave[x] = 1 - before[x];
  });
  before.fill(0);
  for (let x = 0; x < states; x++) if (!(leave[x] > 0)) return { converged: false, steps: 1 };
  // The flows of x > y from the start: a sweep that keeps π.
  eachState(model, (x, n) => {
    acc[x] = 0;
    chain.scatter(x, n, pi[x], acc);
    acc[x] = 0;
  });
  let steps = 2;
  let best = Infinity;
  let bestAt = 0;
  let last = Infinity;
  let ratio = 0;
  // An aggregation that raised the residual is not tried again for `wait` sweeps, doubling each time.
  let wait = 0;
  let backoff = 1;
  let axis = 0;
  for (let sweep = 0; steps < budget; sweep++) {
    throwIfAborted(signal);
    const aggregated = ratio > SLOW && wait === 0;
    if (wait > 0) wait--;
    if (aggregated) {
      // The flows still to come from x > y move with y's block (the sweep's own flows carry the rest).
      const factor = aggregate(chain, pi, axis++ % C, before);
      steps++;
      if (factor) for (let y = 0; y < states; y++) acc[y] *= factor(y);
    }
    before.set(acc);
    let sum = 0;
    eachState(model, (x, n) => {
      const a = acc[x];
      const m = a / leave[x];
      // acc_read − (1 − P̃)·π: a rounding's worth, kept so that the residual is the product's.
      before[x] -= a - leave[x] * m;
      acc[x] = 0;
      pi[x] = m;
      sum += m;
      chain.scatter(x, n, m, acc);
      acc[x] = 0;
    });
    steps++;
    let res = 0;
    for (let y = 0; y < states; y++) {
      res += Math.abs(acc[y] - before[y]);
      before[y] = 0;
      pi[y] /= sum;
      acc[y] /= sum;
    }
    res /= sum;
    if (!(sum > 0) || !Number.isFinite(res)) return { converged: false, steps };
    if (res < target) return { pi, converged: true, steps };
    if (aggregated && res > last) {
      wait = backoff;
      backoff *= 2;
    }
    ratio = res / last;
    last = res;
    if (res < best / 2) {
      best = res;
      bestAt = sweep;
    } else if (sweep - bestAt > STALL) return { pi, converged: false, steps };
  }
  return { pi, converged: false, steps };
}

/** Mass of the states within B_c of each axis's top (n_c > S_c − B_c). */
export function boundaryMass(model: ClassesModel, pi: Float64Array): number[] {
  const { C, S, dims, states } = model;
  const out = new Array<number>(C).fill(0);
  const n = new Int32Array(C);
  for (let x = 0; x < states; x++) {
    if (x > 0) for (let a = C - 1; a >= 0 && ++n[a] === dims[a]; a--) n[a] = 0;
    for (let c = 0; c < C; c++) if (n[c] > S[c] - model.params.classes[c].maxBatchSize) out[c] += pi[x];
  }
  return out;
}
