import { isAction, startAction, type CompiledModel } from '../../model/compile.js';
import { groupsUnder, largestOf, type BindingBytes } from './bindingGroups.js';
import { DEFAULT_FLAGS } from './flags.js';
import { putWarmValues, stateArrays, type PackedStates } from './stageLoop.js';
import { ACTION_INFO, SCENARIO_INFO, StructArray, structBytes } from './structs.js';

/**
 * Packs the compiled models of a batch — each with its own S, B and number of phases M
 * (M = 1 for Poisson arrivals) — into the shared arrays bellman_sweep.wgsl reads: one record
 * per scenario, one per (scenario, b), one coefficient array and one state-to-scenario map,
 * all in f32/u32/i32. A scenario's states are the flat x = s·M + j of docs/mmpp.md ("Compiled
 * model layout"); its coefficients lie in `coef` in this order: the arrival-count block of
 * every b (the model's `pmf`, [b][j][k][j']), the tail triples (the model's `tailCoef`,
 * [b][s][j][j'][3], with the f32 stage's lumping, below), kappa[a·M + j], then τ·λ_j and τ·Q
 * (`waitRate`, `phaseRate`).
 */
/** The shared records and per-state arrays (stageLoop.ts; a scenario's states are its (S + 1)·M), and the kind's own. */
export interface PackedBatch extends PackedStates {
  readonly actions: StructArray;
  readonly coef: Float32Array;
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

/**
 * Where only serve-B is left (s ≥ all_unstable_from) its row may itself be far from
 * stochastic (rate·excess ≈ 8 at S in a gamma cv = 1.2 case), and evaluation sweeps then
 * diverge. Past this bound the f32 stage lumps that row's overflow into h(S, j') instead:
 * stable, and harmless there since serving B is the only serve action left. (Lumping
 * everywhere would be wrong: it makes "wait until S" look cheap, docs/model.md §4.)
 */
export const FALLBACK_ROW_EXCESS = 0.25;

/** Where the 3·M tail coefficients of serving b in (s, j) start in the model's tailCoef. */
function tailRow(m: CompiledModel, s: number, j: number, b: number): number {
  return ((m.tailStart[b] + s - m.tailFirstState[b]) * m.M + j) * m.M * 3;
}

/** Excess row mass of serving b in (s, j) (0 below the tail). */
function phaseRowExcess(m: CompiledModel, s: number, j: number, b: number): number {
  if (s < m.tailFirstState[b]) return 0;
  const r = tailRow(m, s, j, b);
  let negative = 0;
  for (let e = 0; e < 3 * m.M; e++) negative += Math.max(0, -m.tailCoef[r + e]);
  // Row mass is 1, so Σ|c| − 1 = 2 × the negative part.
  return (m.tau / m.sojourn[b * m.M]) * 2 * negative;
}

/** Excess row mass of serving b in level s: the largest over the phases (0 below the tail). */
export function rowExcess(m: CompiledModel, s: number, b: number): number {
  let most = 0;
  for (let j = 0; j < m.M; j++) most = Math.max(most, phaseRowExcess(m, s, j, b));
  return most;
}

/** First level s whose serve-b row exceeds maxExcess in some phase (S + 1 when none); the excess grows with s. */
export function unstableFirst(m: CompiledModel, b: number, maxExcess = ROW_EXCESS): number {
  for (let s = m.tailFirstState[b]; s <= m.S; s++) if (rowExcess(m, s, b) > maxExcess) return s;
  return m.S + 1;
}

/**
 * The tail triples the f32 stage uses: the model's, except serve-B rows (s, j) in the fallback
 * region past FALLBACK_ROW_EXCESS, whose overflow to phase j' goes to h(S, j') (coefficients
 * (mass, 0, 0)).
 */
export function stageTailCoef(m: CompiledModel, allUnstableFrom: number): Float64Array {
  const out = Float64Array.from(m.tailCoef);
  const { B, M } = m;
  for (let s = Math.max(allUnstableFrom, m.tailFirstState[B]); s <= m.S; s++) {
    for (let j = 0; j < M; j++) {
      if (phaseRowExcess(m, s, j, B) <= FALLBACK_ROW_EXCESS) continue;
      const r = tailRow(m, s, j, B);
      for (let c = r; c < r + 3 * M; c += 3) {
        out[c] = m.tailCoef[c] + m.tailCoef[c + 1] + m.tailCoef[c + 2];
        out[c + 1] = 0;
        out[c + 2] = 0;
      }
    }
  }
  return out;
}

/** Whether the f32 stage may serve b in level s (the rule bellman_sweep.wgsl applies). */
export function stageUsable(unstable: Int32Array, allUnstableFrom: number, B: number, s: number, b: number): boolean {
  return s < unstable[b] || (s >= allUnstableFrom && b === B);
}

/** Bytes a model adds to each binding of a batch (the per-state buffers take `states` each). */
export function bindingBytes(m: CompiledModel): BindingBytes {
  const coefLength = m.pmf.length + m.tailCoef.length + m.kappa.length + m.M + m.M * m.M;
  return { states: 4 * (m.S + 1) * m.M, coef: 4 * coefLength, actions: m.B * structBytes(ACTION_INFO), scenarios: structBytes(SCENARIO_INFO) };
}

/** The largest buffer a model alone needs (a model over the binding limit cannot go to the device). */
export function largestBinding(m: CompiledModel): number {
  return largestOf(bindingBytes(m));
}

export interface WarmValues {
  readonly values?: Float64Array;
  readonly policy?: Int32Array;
}

/** A warm policy the stage can start from: one action per state, each allowed there, none waiting at S. */
function usablePolicy(m: CompiledModel, p: Int32Array | undefined): p is Int32Array {
  if (p === undefined || p.length !== (m.S + 1) * m.M) return false;
  for (let x = 0; x < p.length; x++) {
    const s = Math.floor(x / m.M);
    if (!isAction(m, s, p[x])) return false;
  }
  return true;
}

export function packBatch(models: readonly CompiledModel[], warm: readonly (WarmValues | undefined)[] = [], maxExcess = ROW_EXCESS): PackedBatch {
  const n = models.length;
  let totalStates = 0;
  let totalActions = 0;
  let totalCoef = 0;
  for (const m of models) {
    totalStates += (m.S + 1) * m.M;
    totalActions += m.B;
    totalCoef += bindingBytes(m).coef / 4;
  }
  const scenarios = new StructArray(SCENARIO_INFO, n);
  const actions = new StructArray(ACTION_INFO, totalActions);
  const coef = new Float32Array(Math.max(1, totalCoef));
  const { stateScenario, h, policy } = stateArrays(totalStates);
  const stateOffset: number[] = [];
  const states: number[] = [];
  let st = 0;
  let ac = 0;
  let co = 0;
  const put = (data: ArrayLike<number>): number => {
    coef.set(data, co);
    co += data.length;
    return co - data.length;
  };
  models.forEach((m, i) => {
    const { S, B, M } = m;
    const count = (S + 1) * M;
    stateOffset.push(st);
    states.push(count);
    // An action the model lacks (docs/model.md §11.1) is unusable from level 0 on, as the shader's
    // rule reads it; serve-B, the fallback there, is always an action.
    const unstable = Int32Array.from({ length: B + 1 }, (_, b) => (b === 0 || m.serves[b] === 0 ? 0 : unstableFirst(m, b, maxExcess)));
    const allUnstableFrom = Math.max(...unstable);
    const pmfBase = put(m.pmf);
    const tailBase = put(stageTailCoef(m, allUnstableFrom));
    const kappaBase = put(m.kappa);
    const ratesBase = put(m.waitRate);
    put(m.phaseRate);
    const record = { state_offset: st, last: S, phases: M, max_batch: B, action_offset: ac, live: 1, cost_slope: m.costSlope, kappa_base: kappaBase, rates_base: ratesBase, all_unstable_from: allUnstableFrom, states: count };
    for (const [field, value] of Object.entries(record)) scenarios.set(i, field, value);
    for (let b = 1; b <= B; b++, ac++) {
      actions.set(ac, 'rate', m.tau / m.sojourn[b * M]);
      actions.set(ac, 'pmf_offset', m.pmfOffset[b]);
      actions.set(ac, 'pmf_start', pmfBase + m.pmfStart[b]);
      actions.set(ac, 'pmf_length', m.pmfLength[b]);
      actions.set(ac, 'tail_first', m.tailFirstState[b]);
      actions.set(ac, 'tail_start', tailBase + 3 * M * M * m.tailStart[b]);
      actions.set(ac, 'unstable_first', unstable[b]);
    }
    stateScenario.fill(i, st, st + count);
    putWarmValues(h, st, count, warm[i]?.values);
    const p = warm[i]?.policy;
    const start = usablePolicy(m, p) ? p : undefined;
    for (let x = 0; x < count; x++) policy[st + x] = start ? start[x] : startAction(m, Math.floor(x / M));
    st += count;
  });
  return { scenarios, actions, coef, stateScenario, h, policy, stateOffset, states, totalStates };
}

/**
 * Splits a batch into groups that fit one set of bindings (bindingGroups.ts), keeping the order.
 */
export function splitForLimits(models: readonly CompiledModel[], maxBindingBytes: number): number[][] {
  return groupsUnder(models.map(bindingBytes), maxBindingBytes, (i) => `a model with S = ${models[i].S}, M = ${models[i].M}, B = ${models[i].B}`);
}
