import type { ClassesModel } from '../../model/classes/compile.js';
import { groupsUnder, runInGroups } from './bindingGroups.js';
import type { GpuContext } from './device.js';
import { toReal } from './df64.js';
import { axisSlots, axisSumsFit } from './jointAxis.js';
import { classesAxisKernel, classesPadKernel, classesSweepKernel } from './jointKernels.js';
import { jointBindingBytes, JOINT_AXES, packJointBatch } from './jointPack.js';
import { gpuLogger } from './log.js';
import { bindingLimit, runPacked, type BatchedRviOptions, type GpuRviResult, type StageResources } from './stageLoop.js';

/** One joint multi-class model of a batched f32 run. */
export interface GpuJointJob {
  readonly model: ClassesModel;
  /** Relative values and/or a policy over the model's states to start from. */
  readonly warm?: { readonly values?: Float64Array; readonly policy?: Int32Array };
  /** The solve's requested relative gap; the f32 stage stops at max(this, the f32 floor). */
  readonly tolerance: number;
  /**
   * Residual evaluation instead of the f32 stage: per-state costs replacing the model's, evaluated
   * under warm.policy (which must be allowed everywhere) from h = 0 (jointRefine.ts).
   */
  readonly resid?: Float64Array;
}

/**
 * Modified policy iteration in f32 for a batch of joint models (docs/model.md §10) through the
 * one stage loop (stageLoop.ts): each Bellman sweep is a fill of the padded boxes, the per-axis
 * sums of the product kernels (axis 2, then 1) and one dispatch over every state of every live
 * scenario. A model whose per-axis sums would pass the binding limit is summed by rows (logged,
 * `axisSums: false`). Batches too big for one binding run in parts.
 */
export function batchedJointRvi(ctx: GpuContext, jobs: readonly GpuJointJob[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const limit = bindingLimit(ctx);
  const describe = (i: number) => `a joint model with S = (${Array.from(jobs[i].model.S).join(', ')})`;
  // Residual evaluations (refine.ts) take no Bellman sweep, so no per-axis sums.
  const axis = jobs.map((j, i) => {
    if (j.resid) return false;
    const fits = axisSumsFit(j.model, limit);
    if (!fits && axisSlots(j.model) > 0) gpuLogger().info({ axisSums: false, maxStorageBufferBindingSize: limit }, `${describe(i)}: its per-axis sums pass the binding limit; its product kernels are summed by rows`);
    return fits;
  });
  const needs = jobs.map((j, i) => jointBindingBytes(j.model, axis[i]));
  return runInGroups(
    jobs.map((j, i) => ({ ...j, axis: axis[i] })),
    groupsUnder(needs, limit, describe),
    (group) => runJointGroup(ctx, group, opts),
  );
}

function runJointGroup(ctx: GpuContext, jobs: readonly (GpuJointJob & { readonly axis: boolean })[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const packed = packJointBatch(
    jobs.map((j) => j.model),
    jobs.map((j) => j.warm),
    jobs.map((j) => j.resid),
    jobs.map((j) => j.axis),
  );
  // A batch is all stage jobs or all residual evaluations (refine.ts sends the latter alone); these
  // evaluate the model itself, so their box holds its extrapolation, the stage's the lumped tops.
  const residual = jobs.some((j) => j.resid) ? 1 : 0;
  const n = jobs.length;
  const total = packed.totalStates;
  const own = (upload: StageResources['upload']) => ({
    joint: upload(packed.joint.buffer),
    tables: upload(packed.tables),
    coef: upload(toReal(packed.coef, 'f32')),
    hpad: upload(new ArrayBuffer(0), 4 * Math.max(1, packed.hpadValues)),
  });
  return runPacked(
    ctx,
    packed,
    own,
    async (res, buffers, wg) => {
      const pad = await res.bind(classesPadKernel(wg), buffers, { total_pad: packed.totalPad, num_scenarios: n, extrapolate: residual }, { threads: packed.totalPad });
      const sweep = (greedy: number, axisSums: number) => res.bind(classesSweepKernel(wg), buffers, { total_states: total, num_scenarios: n, greedy, residual, axis_sums: axisSums }, { threads: total });
      // An evaluation sweep serves one action per state: its rows cost less than every action's per-axis sums.
      const evaluate = [pad, await sweep(0, 0)];
      if (residual) return { improve: evaluate, evaluate };
      const axes = [];
      for (let x = Math.min(packed.axisClasses, JOINT_AXES) - 1; x >= 1; x--) {
        axes.push(await res.bind(classesAxisKernel(wg), buffers, { total_pad: packed.totalPad, num_scenarios: n, axis: x }, { threads: packed.totalPad }));
      }
      return { improve: [pad, ...axes, await sweep(1, axes.length ? 1 : 0)], evaluate };
    },
    jobs.map((j) => j.tolerance),
    opts,
  );
}
