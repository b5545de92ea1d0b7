import type { ClassesModel } from '../../model/classes/compile.js';
import { groupsUnder } from './bindingGroups.js';
import type { GpuContext } from './device.js';
import { classesPadKernel, classesSweepKernel } from './jointKernels.js';
import { jointBindingBytes, packJointBatch } from './jointPack.js';
import { boundsReduceKernel, normalizeKernel } from './kernels.js';
import { bindingLimit, runStage, StageResources, workgroupSizes, type BatchedRviOptions, type GpuRviResult } from './stageLoop.js';

/** One joint multi-class model of a batched f32 run. */
export interface GpuJointJob {
  readonly model: ClassesModel;
  /** Relative values and/or a policy over the model's states to start from. */
  readonly warm?: { readonly values?: Float64Array; readonly policy?: Int32Array };
  /** The solve's requested relative gap; the f32 stage stops at max(this, the f32 floor). */
  readonly tolerance: number;
}

/**
 * Modified policy iteration in f32 for a batch of joint models (docs/model.md §10) through the
 * one stage loop (stageLoop.ts): each sweep is a fill of the padded boxes and one dispatch over
 * every state of every live scenario. Batches too big for one binding run in parts.
 */
export async function batchedJointRvi(ctx: GpuContext, jobs: readonly GpuJointJob[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const out = new Array<GpuRviResult>(jobs.length);
  const needs = jobs.map((j) => jointBindingBytes(j.model));
  const describe = (i: number) => `a joint model with S = (${Array.from(jobs[i].model.S).join(', ')})`;
  for (const group of groupsUnder(needs, bindingLimit(ctx), describe)) {
    const res = await runJointGroup(ctx, group.map((i) => jobs[i]), opts);
    group.forEach((i, k) => (out[i] = res[k]));
  }
  return out;
}

async function runJointGroup(ctx: GpuContext, jobs: readonly GpuJointJob[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const packed = packJointBatch(
    jobs.map((j) => j.model),
    jobs.map((j) => j.warm),
  );
  const n = jobs.length;
  const total = packed.totalStates;
  const res = new StageResources(ctx);
  const upload = res.upload;
  try {
    const buffers = {
      scenarios: upload(packed.scenarios.buffer),
      joint: upload(packed.joint.buffer),
      state_scenario: upload(packed.stateScenario),
      tables: upload(packed.tables),
      coef: upload(packed.coef),
      h: upload(packed.h),
      hpad: upload(new ArrayBuffer(0), 4 * Math.max(1, packed.totalPad)),
      gap: upload(new ArrayBuffer(0), 4 * total),
      policy: upload(packed.policy),
      changes: upload(new Uint32Array(n)),
      bounds: upload(new ArrayBuffer(0), 16 * n),
    };
    const { wg, reduceWg } = workgroupSizes(ctx.device.limits, opts.flags);
    const pad = await res.bind(classesPadKernel(wg), buffers, { total_pad: packed.totalPad, num_scenarios: n }, { threads: packed.totalPad });
    const sweep = await res.bind(classesSweepKernel(wg), buffers, { total_states: total, num_scenarios: n, greedy: 1 }, { threads: total });
    const evaluate = await res.bind(classesSweepKernel(wg), buffers, { total_states: total, num_scenarios: n, greedy: 0 }, { threads: total });
    const normalize = await res.bind(normalizeKernel(wg), buffers, { total_states: total }, { threads: total });
    const reduce = await res.bind(boundsReduceKernel(reduceWg), buffers, { num_scenarios: n }, { workgroups: n });
    const program = { scenarios: packed.scenarios, buffers, improve: [pad, sweep], evaluate: [pad, evaluate], normalize, reduce, stateOffset: packed.stateOffset, states: packed.states, totalStates: total };
    return await runStage(ctx, program, jobs.map((j) => j.tolerance), opts);
  } finally {
    res.release();
  }
}
