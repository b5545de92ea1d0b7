import { firstActions, type ClassesModel } from '../../model/classes/compile.js';
import { sizeOf } from '../../model/classes/grid.js';
import type { BindingBytes } from './bindingGroups.js';
import { axisPlaneValues, FACTOR_RECORD, MASS_RECORD, putAxisTables } from './jointAxis.js';
import { putWarmValues, stateArrays, type PackedStates } from './stageLoop.js';
import { JOINT_INFO, SCENARIO_INFO, StructArray, structBytes } from './structs.js';

/** The joint kernels' axes: a model of fewer classes gets trailing axes of one level. */
export const JOINT_AXES = 3;

/**
 * A batch of joint multi-class models (docs/model.md §10) packed for classes_pad.wgsl,
 * classes_axis.wgsl and classes_sweep.wgsl: the shared ScenarioInfo records (state_offset,
 * states, live), one JointInfo per model (structs.ts gives the layout of `tables` and `coef`),
 * the state-to-scenario map the shared normalisation reads, and the starting values and policy.
 */
export interface PackedJointBatch extends PackedStates {
  readonly joint: StructArray;
  readonly tables: Int32Array;
  /** The coefficients in f64; uploaded as f32 or df64 pairs (df64.ts: toReal), as the kernels' `Real`. */
  readonly coef: Float64Array;
  /** Padded positions of every box (the pad and axis kernels' threads). */
  readonly totalPad: number;
  /** f32 of `hpad`: the boxes, then the per-axis sums of the models that have them. */
  readonly hpadValues: number;
  /** The most classes of a model with per-axis sums (0: none; then no axis kernel runs). */
  readonly axisClasses: number;
}

const COEF_HEAD = 2 * JOINT_AXES + 1;

/** Bytes a joint model adds to each binding of a batch, with or without its per-axis sums (jointAxis.ts). */
export function jointBindingBytes(m: ClassesModel, axis = false): BindingBytes {
  const rows = m.rowOffset.length;
  return {
    states: 4 * m.states,
    pad: 4 * (sizeOf(m.padDims) + (axis ? axisPlaneValues(m) : 0)),
    tables: 4 * ((5 + FACTOR_RECORD) * m.actions + 3 * rows),
    coef: 4 * (COEF_HEAD + (2 + MASS_RECORD) * m.actions + m.probs.length + m.factorProbs.length + m.states),
    joint: structBytes(JOINT_INFO),
    scenarios: structBytes(SCENARIO_INFO),
  };
}

/**
 * The f32 stage's starting policy where no warm one is given: serve as many as may be of the
 * longest queue (the lowest class on a tie), wait when empty, as policy iteration starts from
 * serving rather than from h = 0's greedy "wait everywhere".
 */
export function jointStartAction(m: ClassesModel, n: Int32Array, first: Int32Array): number {
  let c = 0;
  for (let k = 1; k < m.C; k++) if (n[k] > n[c]) c = k;
  if (n[c] === 0) return 0;
  return first[c] + Math.min(n[c], m.params.classes[c].maxBatchSize) - 1;
}

/** A warm policy the stage may start from: one allowed action per state (wait only below every top). */
function usableJointPolicy(m: ClassesModel, p: Int32Array | undefined): p is Int32Array {
  if (!p || p.length !== m.states) return false;
  const n = new Int32Array(m.C);
  for (let x = 0; x < m.states; x++) {
    if (x > 0) for (let a = m.C - 1; a >= 0 && ++n[a] === m.dims[a]; a--) n[a] = 0;
    const a = p[x];
    if (!(a >= 0 && a < m.actions)) return false;
    if (a === 0 ? n.some((v, c) => v >= m.S[c]) : m.actionBatch[a] > n[m.actionClass[a]]) return false;
  }
  return true;
}

/**
 * `resid` (per model, optional): per-state costs for residual evaluation sweeps (classes_sweep's
 * `residual` mode), at resid_base in `coef`; zeros otherwise. `axis` (per model): whether its
 * product kernels get per-axis sums (jointAxis.ts: axisSumsFit); by rows otherwise.
 */
export function packJointBatch(
  models: readonly ClassesModel[],
  warm: readonly ({ readonly values?: Float64Array; readonly policy?: Int32Array } | undefined)[] = [],
  resid: readonly (Float64Array | undefined)[] = [],
  axis: readonly boolean[] = [],
): PackedJointBatch {
  const need = models.map((m, i) => jointBindingBytes(m, axis[i]));
  const total = (k: string) => need.reduce((s, b) => s + b[k], 0) / 4;
  const scenarios = new StructArray(SCENARIO_INFO, models.length);
  const joint = new StructArray(JOINT_INFO, models.length);
  const tables = new Int32Array(Math.max(1, total('tables')));
  const coef = new Float64Array(Math.max(1, total('coef')));
  const totalStates = total('states');
  const { stateScenario, h, policy } = stateArrays(totalStates);
  const stateOffset: number[] = [];
  const states: number[] = [];
  let st = 0;
  let pad = 0;
  let planes = models.reduce((s, m) => s + sizeOf(m.padDims), 0);
  let axisClasses = 0;
  let li = 0;
  let co = 0;
  models.forEach((m, i) => {
    const dims = axes(m.dims);
    const padDims = axes(m.padDims);
    const padStates = sizeOf(m.padDims);
    const coefBase = co;
    for (let c = 0; c < m.C; c++) {
      coef[co + c] = m.costSlope[c];
      coef[co + JOINT_AXES + c] = m.waitRate[c];
    }
    coef[co + 2 * JOINT_AXES] = m.idleKappa;
    const kappaBase = co + COEF_HEAD;
    coef.set(m.kappa, kappaBase);
    coef.set(m.ratio, kappaBase + m.actions);
    const probsBase = kappaBase + 2 * m.actions;
    coef.set(m.probs, probsBase);
    const residBase = probsBase + m.probs.length;
    const r = resid[i];
    if (r && r.length === m.states) coef.set(r, residBase);
    const massBase = residBase + m.states;
    const fprobsBase = massBase + MASS_RECORD * m.actions;
    co = fprobsBase + m.factorProbs.length;
    const actionBase = li;
    for (let a = 0; a < m.actions; a++) {
      tables.set([m.actionClass[a], m.actionBatch[a], m.shift[a], m.rowStart[a], a > 0 ? m.rowStart[a + 1] : 0], li);
      li += 5;
    }
    const rowBase = li;
    for (let r = 0; r < m.rowOffset.length; r++, li += 3) tables.set([m.rowOffset[r], m.rowLength[r], m.rowValue[r]], li);
    const factorBase = li;
    putAxisTables(m, axis[i] === true, tables, factorBase, coef, massBase, fprobsBase);
    li += FACTOR_RECORD * m.actions;
    const axisBase = planes;
    if (axis[i]) {
      planes += axisPlaneValues(m);
      axisClasses = Math.max(axisClasses, m.C);
    }
    const info = {
      classes: m.C, state_offset: st, states: m.states, pad_offset: pad, pad_states: padStates,
      dim0: dims[0], dim1: dims[1], dim2: dims[2], pad_dim0: padDims[0], pad_dim1: padDims[1], pad_dim2: padDims[2],
      actions: m.actions, action_base: actionBase, row_base: rowBase, coef_base: coefBase, kappa_base: kappaBase, probs_base: probsBase, resid_base: residBase,
      factor_base: factorBase, fprobs_base: fprobsBase, mass_base: massBase, axis_base: axisBase,
    };
    for (const [field, value] of Object.entries(info)) joint.set(i, field, value);
    for (const [field, value] of Object.entries({ state_offset: st, states: m.states, live: 1 })) scenarios.set(i, field, value);
    stateScenario.fill(i, st, st + m.states);
    putWarmValues(h, st, m.states, warm[i]?.values);
    const p = warm[i]?.policy;
    const start = usableJointPolicy(m, p) ? p : undefined;
    const first = firstActions(m.params);
    const n = new Int32Array(m.C);
    for (let x = 0; x < m.states; x++) {
      if (x > 0) for (let a = m.C - 1; a >= 0 && ++n[a] === m.dims[a]; a--) n[a] = 0;
      policy[st + x] = start ? start[x] : jointStartAction(m, n, first);
    }
    stateOffset.push(st);
    states.push(m.states);
    st += m.states;
    pad += padStates;
  });
  return { scenarios, joint, tables, coef, stateScenario, h, policy, stateOffset, states, totalStates, totalPad: pad, hpadValues: planes, axisClasses };
}

/** Dims on JOINT_AXES axes, trailing axes of one level. */
function axes(d: Int32Array): number[] {
  return Array.from({ length: JOINT_AXES }, (_, a) => (a < d.length ? d[a] : 1));
}
