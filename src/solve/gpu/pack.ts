import type { CompiledModel } from '../../model/compile.js';
import { DEFAULT_FLAGS } from './flags.js';
import { ACTION_INFO, SCENARIO_INFO, StructArray } from './structs.js';

/**
 * Packs the compiled models of a batch (different S and B) into the shared arrays the
 * kernels read: one record per scenario, one per (scenario, b), one coefficient array (every
 * pmf, then every tail triple) and one state-to-scenario map, all in f32/u32/i32.
 */
export interface PackedBatch {
  readonly scenarios: StructArray;
  readonly actions: StructArray;
  readonly coef: Float32Array;
  readonly stateScenario: Uint32Array;
  /** Initial relative values (warm start or 0), h̃(0) = 0 per scenario. */
  readonly h: Float32Array;
  /** Initial policy (warm start, or serve min(s, B) as policy iteration starts). */
  readonly policy: Uint32Array;
  /** First global state of each scenario; states of scenario i are stateOffset[i]..stateOffset[i]+S_i. */
  readonly stateOffset: readonly number[];
  readonly totalStates: number;
}

/**
 * Default bound on the excess absolute row mass (rate × Σ|coefficients| − 1) of a serve row
 * the f32 stage uses. Rows that pass S carry the quadratic extrapolation of docs/model.md §4, with
 * coefficients of both signs that grow with the overflow, and rows far from stochastic make
 * value iteration diverge (textbook f64 RVI too: e.g. rate·|c| ≈ 22 when serving 1 at S
 * with a long geometric pmf). The f32 stage leaves such (s, b) out; where no serve action is
 * left (s ≥ all_unstable_from) it keeps serving B, usually the least far from stochastic
 * there. Those actions are the worst ones anyway (their overflow is valued by a steep
 * quadratic), and the f64 polish considers every action again. Lumping the overflow into S
 * instead would be stable but wrong: it makes "wait until S" look cheap (docs/model.md §4), and the
 * f32 stage then converges to that degenerate policy on the spec's λ = 4000 case.
 */
export const ROW_EXCESS = DEFAULT_FLAGS.BATCHWISE_GPU_MAX_ROW_EXCESS;

/** First state s whose serve-b row exceeds maxExcess (S + 1 when none); the excess grows with s. */
export function unstableFirst(m: CompiledModel, b: number, maxExcess = ROW_EXCESS): number {
  for (let s = m.tailFirstState[b]; s <= m.S; s++) if (rowExcess(m, s, b) > maxExcess) return s;
  return m.S + 1;
}

/**
 * Where only serve-B is left (s ≥ all_unstable_from) its row may itself be far from
 * stochastic (rate·excess ≈ 8 at S in a gamma cv = 1.2 case), and evaluation sweeps then
 * diverge. Past this bound the f32 stage lumps that row's overflow into h(S) instead: stable,
 * and harmless there since serving B is the only serve action left. (Lumping everywhere would
 * be wrong: it makes "wait until S" look cheap, docs/model.md §4.)
 */
export const FALLBACK_ROW_EXCESS = 0.25;

/** Excess row mass of serving b in s (0 below the tail). */
export function rowExcess(m: CompiledModel, s: number, b: number): number {
  if (s < m.tailFirstState[b]) return 0;
  const r = 3 * (m.tailStart[b] + s - m.tailFirstState[b]);
  let negative = 0;
  for (let i = 0; i < 3; i++) negative += Math.max(0, -m.tailCoef[r + i]);
  // Row mass is 1, so Σ|c| − 1 = 2 × the negative part.
  return (m.tau / m.sojourn[b]) * 2 * negative;
}

/**
 * The tail triples the f32 stage uses: the model's, except serve-B rows in the fallback
 * region past FALLBACK_ROW_EXCESS, whose overflow goes to h(S) (coefficients (mass, 0, 0)).
 */
export function stageTailCoef(m: CompiledModel, allUnstableFrom: number): Float64Array {
  const out = Float64Array.from(m.tailCoef);
  const B = m.B;
  for (let s = Math.max(allUnstableFrom, m.tailFirstState[B]); s <= m.S; s++) {
    if (rowExcess(m, s, B) <= FALLBACK_ROW_EXCESS) continue;
    const r = 3 * (m.tailStart[B] + s - m.tailFirstState[B]);
    out[r] = m.tailCoef[r] + m.tailCoef[r + 1] + m.tailCoef[r + 2];
    out[r + 1] = 0;
    out[r + 2] = 0;
  }
  return out;
}

/** Whether the f32 stage may serve b in s (the rule bellman_sweep.wgsl applies). */
export function stageUsable(unstable: Int32Array, allUnstableFrom: number, B: number, s: number, b: number): boolean {
  return s < unstable[b] || (s >= allUnstableFrom && b === B);
}

/** Bytes of device memory a model takes in a batch (used to split big batches). */
export function packedBytes(m: CompiledModel): number {
  const states = m.S + 1;
  return 4 * (states * 5 + m.pmf.length + m.tailCoef.length) + 32 * (m.B + 1);
}

export interface WarmValues {
  readonly values?: Float64Array;
  readonly policy?: Int32Array;
}

export function packBatch(models: readonly CompiledModel[], warm: readonly (WarmValues | undefined)[] = [], maxExcess = ROW_EXCESS): PackedBatch {
  const n = models.length;
  let totalStates = 0;
  let totalActions = 0;
  let totalCoef = 0;
  for (const m of models) {
    totalStates += m.S + 1;
    totalActions += m.B;
    totalCoef += m.pmf.length + m.tailCoef.length;
  }
  const scenarios = new StructArray(SCENARIO_INFO, n);
  const actions = new StructArray(ACTION_INFO, totalActions);
  const coef = new Float32Array(Math.max(1, totalCoef));
  const stateScenario = new Uint32Array(Math.max(1, totalStates));
  const h = new Float32Array(Math.max(1, totalStates));
  const policy = new Uint32Array(Math.max(1, totalStates));
  const stateOffset: number[] = [];
  let st = 0;
  let ac = 0;
  let co = 0;
  models.forEach((m, i) => {
    stateOffset.push(st);
    scenarios.set(i, 'state_offset', st);
    scenarios.set(i, 'last', m.S);
    scenarios.set(i, 'max_batch', m.B);
    scenarios.set(i, 'action_offset', ac);
    scenarios.set(i, 'live', 1);
    scenarios.set(i, 'cost_slope', m.costSlope);
    scenarios.set(i, 'wait_rate', m.waitRate[0]);
    scenarios.set(i, 'wait_cost', m.kappa[0]);
    const pmfBase = co;
    coef.set(m.pmf, co);
    co += m.pmf.length;
    const unstable = Int32Array.from({ length: m.B + 1 }, (_, b) => (b === 0 ? 0 : unstableFirst(m, b, maxExcess)));
    const allUnstableFrom = Math.max(...unstable);
    const tailBase = co;
    coef.set(stageTailCoef(m, allUnstableFrom), co);
    co += m.tailCoef.length;
    for (let b = 1; b <= m.B; b++, ac++) {
      actions.set(ac, 'unstable_first', unstable[b]);
      actions.set(ac, 'cost', m.kappa[b]);
      actions.set(ac, 'rate', m.tau / m.sojourn[b]);
      actions.set(ac, 'pmf_offset', m.pmfOffset[b]);
      actions.set(ac, 'pmf_start', pmfBase + m.pmfStart[b]);
      actions.set(ac, 'pmf_length', m.pmfLength[b]);
      actions.set(ac, 'tail_first', m.tailFirstState[b]);
      actions.set(ac, 'tail_start', tailBase + 3 * m.tailStart[b]);
    }
    scenarios.set(i, 'all_unstable_from', allUnstableFrom);
    stateScenario.fill(i, st, st + m.S + 1);
    const w = warm[i]?.values;
    if (w && w.length === m.S + 1) {
      for (let s = 0; s <= m.S; s++) h[st + s] = w[s] - w[0];
    }
    const p = warm[i]?.policy;
    const usable = p !== undefined && p.length === m.S + 1 && p[m.S] > 0 && p.every((a, s) => a >= 0 && a <= Math.min(s, m.B));
    for (let s = 0; s <= m.S; s++) policy[st + s] = usable ? p[s] : Math.min(s, m.B);
    st += m.S + 1;
  });
  return { scenarios, actions, coef, stateScenario, h, policy, stateOffset, totalStates };
}

/**
 * Splits a batch into groups that fit one set of bindings (each buffer under the device's
 * maxStorageBufferBindingSize), keeping the order.
 */
export function splitForLimits(models: readonly CompiledModel[], maxBindingBytes: number): number[][] {
  const groups: number[][] = [];
  let group: number[] = [];
  let bytes = 0;
  models.forEach((m, i) => {
    const need = packedBytes(m);
    if (need > maxBindingBytes) throw new Error(`a model with S = ${m.S}, B = ${m.B} needs ${need} bytes, over the binding limit ${maxBindingBytes}`);
    if (group.length && bytes + need > maxBindingBytes) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(i);
    bytes += need;
  });
  if (group.length) groups.push(group);
  return groups;
}
