import { throwIfAborted } from '../errors.js';
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
  const { C, S, dims, strides, states, waitRate, actionClass, actionBatch, ratio, rowStart, rowLength, rowValue, rowCoord, probs } = model;
  let pi = new Float64Array(states);
  if (opts.start && opts.start.length === states) pi.set(opts.start);
  else pi.fill(1 / states);
  let next = new Float64Array(states);
  const n = new Int32Array(C);
  const t = new Int32Array(C);
  let steps = 0;
  for (; steps < MAX_STEPS; steps++) {
    if ((steps & 63) === 0) throwIfAborted(opts.signal);
    next.fill(0);
    n.fill(0);
    for (let x = 0; x < states; x++) {
      if (x > 0) for (let a = C - 1; a >= 0 && ++n[a] === dims[a]; a--) n[a] = 0;
      const m = pi[x];
      if (m === 0) continue;
      const act = policy[x];
      if (act === 0) {
        let out = 0;
        for (let c = 0; c < C; c++) {
          next[x + strides[c]] += m * waitRate[c];
          out += waitRate[c];
        }
        next[x] += m * (1 - out);
        continue;
      }
      const c0 = actionClass[act];
      const r = ratio[act];
      next[x] += m * (1 - r);
      for (let row = rowStart[act]; row < rowStart[act + 1]; row++) {
        let at = 0;
        for (let c = 0; c < C - 1; c++) {
          t[c] = n[c] - (c === c0 ? actionBatch[act] : 0) + rowCoord[row * C + c];
          at += Math.min(t[c], S[c]) * strides[c];
        }
        const last = C - 1;
        const t0 = n[last] - (last === c0 ? actionBatch[act] : 0) + rowCoord[row * C + last];
        const pb = rowValue[row];
        for (let e = 0; e < rowLength[row]; e++) next[at + Math.min(t0 + e, S[last])] += m * r * probs[pb + e];
      }
    }
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
