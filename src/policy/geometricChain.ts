import type { GeometricCascade } from '../model/arrivalTable.js';
import { evaluatedWithoutBand } from '../model/chainEntries.js';
import type { CompiledModel } from '../model/compile.js';
import { factorFrom, reduce, solveReduced, stationaryOf, type GeometricRows } from './geometricFactor.js';

export type { GeometricRows } from './geometricFactor.js';

/*
 * The policy-evaluation chain of a one-phase model with geometric count laws (exponential
 * service), evaluated without its dense band (docs/model.md §3.5, "geometric laws"): the rows
 * are built here, reduced in geometricFactor.ts.
 */

/** Whether the structured reduction applies to this model and policy (else the banded one of modelChain.ts). */
export function hasGeometricLaws(model: CompiledModel, policy: Int32Array): boolean {
  return evaluatedWithoutBand(model) && policy[model.S] > 0;
}

/** The policy's chain on the model (modelChain.ts writeRow), with the exact law and the §4 tail coefficients. */
function modelRows(model: CompiledModel, policy: Int32Array): GeometricRows {
  const { S, B, tailFirstState, tailStart, tailCoef } = model;
  const n = S + 1;
  const tail = new Float64Array(n * 3);
  for (let s = 0; s < n; s++) {
    const b = policy[s];
    if (b > 0 && s >= tailFirstState[b]) tail.set(tailCoef.subarray((tailStart[b] + s - tailFirstState[b]) * 3, (tailStart[b] + s - tailFirstState[b] + 1) * 3), s * 3);
  }
  return { n, lo: Math.max(B, 2), act: policy, ratio: model.cascade!.ratio, complement: model.cascade!.complement, tail };
}

/**
 * The extended chain of a policy (extension.ts): n states, `act` the actions, the overflow past
 * the top kept there (P(K ≥ n − 1 − u + 1) = q^(n − u) onto n − 1, on top of the law's atom there).
 */
export function extendedRows(cascade: GeometricCascade, act: Int32Array, lo: number): GeometricRows {
  const n = act.length;
  const tail = new Float64Array(n * 3);
  for (let s = 0; s < n; s++) {
    const b = act[s];
    if (b > 0) tail[s * 3] = cascade.ratio[b] ** (n - (s - b));
  }
  return { n, lo: Math.max(lo, 2), act, ratio: cascade.ratio, complement: cascade.complement, tail };
}

/** The policy's evaluation on the model: g, h and ν, with `rounds` of refinement; undefined if every reference tried meets a zero pivot. */
export function solveGeometric(model: CompiledModel, policy: Int32Array, ref: number, rounds: number, signal?: AbortSignal): { gain: number; values: Float64Array; stationary: Float64Array; mode: number } | undefined {
  const rows = modelRows(model, policy);
  const f = factorFrom(rows, ref, signal);
  if (!f) return undefined;
  const { rew, time } = rowCosts(model, policy);
  const tr = reduce(f, time);
  let { gain, values } = solveReduced(f, reduce(f, rew), tr);
  for (let r = 0; r < rounds; r++) {
    // Iterative refinement (chain.ts): the residual on the original chain, its correction through the same reduction.
    const res = residual(rows, rew, time, values, gain);
    const c = solveReduced(f, reduce(f, res), tr);
    for (let x = 0; x < rows.n; x++) values[x] += c.values[x];
    gain += c.gain;
  }
  const { stationary, mode } = stationaryOf(f);
  return { gain, values, stationary, mode };
}

/** The stationary law of a chain of geometric rows (any reference gives it accurately: ref 0); undefined as above. */
export function geometricStationary(rows: GeometricRows, signal?: AbortSignal): Float64Array | undefined {
  const f = factorFrom(rows, 0, signal);
  return f ? stationaryOf(f).stationary : undefined;
}

/** Per-state reward c(s)·y(s) and time y(s) of the policy's chain (as modelChain.ts writes them). */
function rowCosts(model: CompiledModel, policy: Int32Array): { rew: Float64Array; time: Float64Array } {
  const n = model.S + 1;
  const rew = new Float64Array(n);
  const time = new Float64Array(n);
  for (let s = 0; s < n; s++) {
    const a = policy[s];
    const y = model.sojourn[a];
    rew[s] = (model.costSlope * s + model.kappa[a]) * y;
    time[s] = y;
  }
  return { rew, time };
}

/**
 * r(s) = c(s) − g·y(s) + Σ_j p(s, j)·(h(j) − h(s)) on the exact chain, the serve sums by the
 * backward recurrence of §3.2 per class: m(u) = c + q·m(u+1), R(u) = q·(R(u+1) + m(u+1)·(h(u+1) − h(u))).
 */
function residual(rows: GeometricRows, rew: Float64Array, time: Float64Array, h: Float64Array, g: number): Float64Array {
  const { n, act, ratio, complement, tail } = rows;
  const S = n - 1;
  const r = new Float64Array(n);
  // The lowest state serving each b.
  const lowest = new Int32Array(ratio.length).fill(n);
  for (let s = 0; s < n; s++) {
    r[s] = rew[s] - g * time[s];
    const b = act[s];
    if (b === 0) r[s] += h[s + 1] - h[s];
    else {
      r[s] += tail[s * 3] * (h[S] - h[s]) + tail[s * 3 + 1] * (h[S - 1] - h[s]) + tail[s * 3 + 2] * (h[S - 2] - h[s]);
      lowest[b] = Math.min(lowest[b], s);
    }
  }
  for (let b = 1; b < ratio.length; b++) {
    if (lowest[b] === n) continue;
    const q = ratio[b];
    const c = complement[b];
    let m = c;
    let R = 0;
    for (let u = S; ; u--) {
      const s = u + b;
      if (s <= S && act[s] === b) r[s] += R + m * (h[u] - h[s]);
      if (u <= lowest[b] - b) break;
      R = q * (R + m * (h[u] - h[u - 1]));
      m = c + q * m;
    }
  }
  return r;
}
