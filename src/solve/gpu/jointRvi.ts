import type { ClassesModel } from '../../model/classes/compile.js';
import { groupsUnder, runInGroups } from './bindingGroups.js';
import type { GpuContext } from './device.js';
import { classesPadKernel, classesSweepKernel } from './jointKernels.js';
import { jointBindingBytes, packJointBatch } from './jointPack.js';
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
 * one stage loop (stageLoop.ts): each sweep is a fill of the padded boxes and one dispatch over
 * every state of every live scenario. Batches too big for one binding run in parts.
 */
export function batchedJointRvi(ctx: GpuContext, jobs: readonly GpuJointJob[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const needs = jobs.map((j) => jointBindingBytes(j.model));
  const describe = (i: number) => `a joint model with S = (${Array.from(jobs[i].model.S).join(', ')})`;
  return runInGroups(jobs, groupsUnder(needs, bindingLimit(ctx), describe), (group) => runJointGroup(ctx, group, opts));
}

function runJointGroup(ctx: GpuContext, jobs: readonly GpuJointJob[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const packed = packJointBatch(
    jobs.map((j) => j.model),
    jobs.map((j) => j.warm),
    jobs.map((j) => j.resid),
  );
  // A batch is all stage jobs or all residual evaluations (refine.ts sends the latter alone); these
  // evaluate the model itself, so their box holds its extrapolation, the stage's the lumped tops.
  const residual = jobs.some((j) => j.resid) ? 1 : 0;
  const n = jobs.length;
  const total = packed.totalStates;
  const own = (upload: StageResources['upload']) => ({
    joint: upload(packed.joint.buffer),
    tables: upload(packed.tables),
    coef: upload(packed.coef),
    hpad: upload(new ArrayBuffer(0), 4 * Math.max(1, packed.totalPad)),
  });
  return runPacked(
    ctx,
    packed,
    own,
    async (res, buffers, wg) => {
      const pad = await res.bind(classesPadKernel(wg), buffers, { total_pad: packed.totalPad, num_scenarios: n, extrapolate: residual }, { threads: packed.totalPad });
      const sweep = (greedy: number) => res.bind(classesSweepKernel(wg), buffers, { total_states: total, num_scenarios: n, greedy, residual }, { threads: total });
      const evaluate = [pad, await sweep(0)];
      return { improve: residual ? evaluate : [pad, await sweep(1)], evaluate };
    },
    jobs.map((j) => j.tolerance),
    opts,
  );
}
