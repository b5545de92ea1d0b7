import { throwIfAborted } from '../errors.js';
import { eachState, PolicyChain } from './chain.js';
import type { ClassesModel } from './compile.js';

/** Power iteration stops when one step moves less than this much mass (L1). */
const STEADY = 1e-13;
const MAX_STEPS = 2_000_000;

/**
 * The stationary law π̃ of the transformed chain under a policy: the long-run share of time in
 * each state (π̃ ∝ ν·y for the embedded law ν). Arrivals past a top are held at the top (lumped):
 * the result is read only once the mass near every top is below the tail bound, where the
 * difference to the extrapolated model is of that order. Power iteration π ← π·P̃ (aperiodic:
 * every state keeps at least 1 − τ/y ≥ 0.001 on itself), from the uniform law or `start`.
 */
export function stationaryLaw(model: ClassesModel, policy: Int32Array, opts: { readonly signal?: AbortSignal; readonly start?: Float64Array } = {}): { pi: Float64Array; steps: number } {
  const { states } = model;
  let pi = new Float64Array(states);
  if (opts.start && opts.start.length === states) pi.set(opts.start);
  else pi.fill(1 / states);
  const chain = new PolicyChain(model, policy);
  let next = new Float64Array(states);
  let steps = 0;
  for (; steps < MAX_STEPS; steps++) {
    if ((steps & 63) === 0) throwIfAborted(opts.signal);
    next.fill(0);
    eachState(model, (x, n) => chain.scatter(x, n, pi[x], next));
    let moved = 0;
    let total = 0;
    for (let x = 0; x < states; x++) total += next[x];
    for (let x = 0; x < states; x++) {
      next[x] /= total;
      moved += Math.abs(next[x] - pi[x]);
    }
    [pi, next] = [next, pi];
    if (moved < STEADY) return { pi, steps: steps + 1 };
  }
  return { pi, steps };
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
