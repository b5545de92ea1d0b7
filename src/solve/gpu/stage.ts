import { AbortError } from '../../model/errors.js';
import type { ClassesModel } from '../../model/classes/compile.js';
import type { JointGpuStage, JointStageJob } from '../types.js';
import { acquireGpu } from './device.js';
import type { GpuFlags } from './flags.js';
import { batchedJointRvi, type GpuJointJob } from './jointRvi.js';
import { gpuLogger } from './log.js';
import { batchedRvi, type GpuRunHooks } from './rvi.js';
import type { GpuStage, GpuStageResult } from './solver.js';

/**
 * The f32 stage of a single solve on the shared device: a batch of one through the one
 * kernel family (bellman_sweep.wgsl), for any number of phases.
 */
export function directStage(flags: GpuFlags, hooks?: GpuRunHooks): GpuStage {
  return async (job, signal) => {
    const ctx = await acquireGpu(flags);
    if (!ctx) return undefined;
    const [result] = await batchedRvi(ctx, [job], { flags, signal, hooks });
    return { result, adapter: ctx.adapterName };
  };
}

/** The f32 run of one joint job, a stage or a residual evaluation, on the device: alone (directJointStage) or in a collector's batch. */
export type JointRun = (job: GpuJointJob, kind: 'joint' | 'residual', signal?: AbortSignal) => Promise<GpuStageResult | undefined>;

/** Residual evaluations never change the policy, so the "stable policy" stop must not end them. */
export function residualFlags(flags: GpuFlags): GpuFlags {
  return { ...flags, BATCHWISE_GPU_STABLE_CHECKS: Number.POSITIVE_INFINITY };
}

/**
 * The f32 stage of a joint multi-class solve on the shared device (classes_sweep.wgsl), and its
 * residual evaluations for the mixed-precision refinement (src/solve/classes/refine.ts), as a
 * batch of one.
 */
export function directJointStage(flags: GpuFlags, hooks?: GpuRunHooks): JointGpuStage {
  const evalFlags = residualFlags(flags);
  return jointStage(async (job, kind, signal) => {
    const ctx = await acquireGpu(flags);
    if (!ctx) return undefined;
    const [result] = await batchedJointRvi(ctx, [job], { flags: kind === 'residual' ? evalFlags : flags, signal, hooks });
    return { result, adapter: ctx.adapterName };
  });
}

/**
 * A JointGpuStage over a run of joint jobs. A GPU failure or a diverged f32 run is logged and
 * gives nothing, so the solve goes on on the CPU; AbortError propagates.
 */
export function jointStage(run: JointRun): JointGpuStage {
  const once = async (job: GpuJointJob, kind: 'joint' | 'residual', signal: AbortSignal | undefined) => {
    const described = { maxQueue: Array.from(job.model.S), states: job.model.states };
    try {
      const out = await run(job, kind, signal);
      if (!out) return undefined;
      const r = out.result;
      if (!r.values || !r.policy) {
        gpuLogger().warn({ stop: r.stop, sweeps: r.sweeps, ...described }, `f32 ${kind === 'residual' ? 'residual evaluation' : 'iteration'} diverged; solving the joint model on the CPU`);
        return undefined;
      }
      return { values: r.values, policy: r.policy, sweeps: r.sweeps, adapter: out.adapter };
    } catch (e) {
      if (e instanceof AbortError) throw e;
      gpuLogger().warn({ err: e, ...described }, 'GPU stage failed; solving the joint model on the CPU');
      return undefined;
    }
  };
  return Object.assign((job: JointStageJob, signal?: AbortSignal) => once({ model: job.model, warm: job.warm, tolerance: job.tolerance }, 'joint', signal), {
    residuals: (model: ClassesModel) => async (policy: Int32Array, costs: Float64Array, signal?: AbortSignal) => {
      const r = await once({ model, warm: { policy }, tolerance: 0, resid: costs }, 'residual', signal);
      return r && { values: r.values, sweeps: r.sweeps };
    },
  });
}
