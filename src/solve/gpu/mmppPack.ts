import type { CompiledModel } from '../../model/compile.js';
import type { WarmValues } from './pack.js';
import { MMPP_ACTION_INFO } from './mmppKernels.js';
import { FALLBACK_ROW_EXCESS, ROW_EXCESS } from './pack.js';
import { StructArray } from './structs.js';

/**
 * One compiled MMPP model in the f32 arrays mmpp_bellman_sweep.wgsl reads. `coef` holds, in
 * this order: the counting-matrix block of every b (the model's `pmf`, [b][j][i][j']), the tail
 * triples (the model's `tailCoef`, [b][s][j][j'][3], with the f32 stage's lumping, below),
 * kappa[b·M + j], the rates λ_j and the generator Q row-major.
 */
export interface PackedMmpp {
  readonly actions: StructArray;
  readonly coef: Float32Array;
  readonly kappaBase: number;
  readonly ratesBase: number;
  readonly generatorBase: number;
  readonly allUnstableFrom: number;
  /** Initial relative values (warm start or 0), h̃(0, 0) = 0. */
  readonly h: Float32Array;
  /** Initial policy (warm start, or serve min(s, B) in every phase as policy iteration starts). */
  readonly policy: Uint32Array;
  readonly totalStates: number;
}

/**
 * Excess absolute row mass, rate × (Σ|coefficients| − 1), of serving b in (s, j): 0 below the
 * tail. As for the Poisson model (pack.ts), rows that pass S carry the §4 quadratic
 * extrapolation, whose coefficients have both signs and grow with the overflow, and rows far
 * from stochastic make value iteration diverge.
 */
export function mmppRowExcess(m: CompiledModel, s: number, j: number, b: number): number {
  if (s < m.tailFirstState[b]) return 0;
  const M = m.M;
  const r = ((m.tailStart[b] + s - m.tailFirstState[b]) * M + j) * M * 3;
  let negative = 0;
  for (let e = 0; e < 3 * M; e++) negative += Math.max(0, -m.tailCoef[r + e]);
  // The row's mass is 1, so Σ|c| − 1 = 2 × the negative part.
  return (m.tau / m.sojourn[b * M]) * 2 * negative;
}

/** First s where serving b is past maxExcess in some phase (S + 1 when none). */
export function mmppUnstableFirst(m: CompiledModel, b: number, maxExcess = ROW_EXCESS): number {
  for (let s = m.tailFirstState[b]; s <= m.S; s++) {
    for (let j = 0; j < m.M; j++) if (mmppRowExcess(m, s, j, b) > maxExcess) return s;
  }
  return m.S + 1;
}

/**
 * The tail triples the f32 stage uses: the model's, except serve-B rows in the region where
 * nothing else serves (s ≥ allUnstableFrom) whose excess passes FALLBACK_ROW_EXCESS: their
 * overflow to phase j' goes to h(S, j') (coefficients (mass, 0, 0)), stable and harmless there.
 */
export function mmppStageTailCoef(m: CompiledModel, allUnstableFrom: number): Float64Array {
  const out = Float64Array.from(m.tailCoef);
  const { B, M } = m;
  for (let s = Math.max(allUnstableFrom, m.tailFirstState[B]); s <= m.S; s++) {
    for (let j = 0; j < M; j++) {
      if (mmppRowExcess(m, s, j, B) <= FALLBACK_ROW_EXCESS) continue;
      const r = ((m.tailStart[B] + s - m.tailFirstState[B]) * M + j) * M * 3;
      for (let jj = 0; jj < M; jj++) {
        const c = r + 3 * jj;
        out[c] = m.tailCoef[c] + m.tailCoef[c + 1] + m.tailCoef[c + 2];
        out[c + 1] = 0;
        out[c + 2] = 0;
      }
    }
  }
  return out;
}

/** Bytes of the largest buffer the model needs (checked against the binding limit). */
export function mmppLargestBinding(m: CompiledModel): number {
  return 4 * Math.max(m.pmf.length + m.tailCoef.length + m.kappa.length + m.M + m.M * m.M, (m.S + 1) * m.M);
}

export function packMmpp(m: CompiledModel, warm?: WarmValues, maxExcess = ROW_EXCESS): PackedMmpp {
  const { S, B, M } = m;
  const n = (S + 1) * M;
  const unstable = Int32Array.from({ length: B + 1 }, (_, b) => (b === 0 ? 0 : mmppUnstableFirst(m, b, maxExcess)));
  let allUnstableFrom = 0;
  for (let b = 1; b <= B; b++) allUnstableFrom = Math.max(allUnstableFrom, unstable[b]);
  const tailBase = m.pmf.length;
  const kappaBase = tailBase + m.tailCoef.length;
  const ratesBase = kappaBase + m.kappa.length;
  const generatorBase = ratesBase + M;
  const coef = new Float32Array(generatorBase + M * M);
  coef.set(m.pmf, 0);
  coef.set(mmppStageTailCoef(m, allUnstableFrom), tailBase);
  coef.set(m.kappa, kappaBase);
  coef.set(m.rates, ratesBase);
  coef.set(m.process.generator, generatorBase);
  const actions = new StructArray(MMPP_ACTION_INFO, B);
  for (let b = 1; b <= B; b++) {
    const a = b - 1;
    actions.set(a, 'rate', m.tau / m.sojourn[b * M]);
    actions.set(a, 'pmf_offset', m.pmfOffset[b]);
    actions.set(a, 'pmf_start', m.pmfStart[b]);
    actions.set(a, 'pmf_length', m.pmfLength[b]);
    actions.set(a, 'tail_first', m.tailFirstState[b]);
    actions.set(a, 'tail_start', tailBase + 3 * M * M * m.tailStart[b]);
    actions.set(a, 'unstable_first', unstable[b]);
  }
  const h = new Float32Array(n);
  const w = warm?.values;
  if (w && w.length === n) for (let x = 0; x < n; x++) h[x] = w[x] - w[0];
  const policy = new Uint32Array(n);
  const p = warm?.policy;
  let usable = p !== undefined && p.length === n;
  if (usable) {
    for (let x = 0; x < n && usable; x++) {
      const s = Math.floor(x / M);
      if (p![x] < 0 || p![x] > Math.min(s, B) || (s === S && p![x] === 0)) usable = false;
    }
  }
  for (let x = 0; x < n; x++) policy[x] = usable ? p![x] : Math.min(Math.floor(x / M), B);
  return { actions, coef, kappaBase, ratesBase, generatorBase, allUnstableFrom, h, policy, totalStates: n };
}
