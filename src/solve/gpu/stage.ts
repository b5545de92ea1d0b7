import { AbortError } from '../../model/errors.js';
import type { ClassesModel } from '../../model/classes/compile.js';
import type { JointGpuStage, JointStageJob } from '../types.js';
import { acquireGpu } from './device.js';
import type { GpuFlags } from './flags.js';
import { batchedJointRvi, type GpuJointJob } from './jointRvi.js';
import { gpuLogger } from './log.js';
import { batchedRvi, type GpuRunHooks } from './rvi.js';
import type { GpuStage } from './solver.js';

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

/**
 * The f32 stage of a joint multi-class solve on the shared device (classes_sweep.wgsl), and its
 * residual evaluations for the mixed-precision refinement (src/solve/classes/refine.ts). A GPU
 * failure or a diverged f32 run is logged and gives nothing, so the solve goes on on the CPU;
 * AbortError propagates.
 */
export function directJointStage(flags: GpuFlags, hooks?: GpuRunHooks): JointGpuStage {
  const run = async (job: GpuJointJob, runFlags: GpuFlags, signal: AbortSignal | undefined, what: string) => {
    const described = { maxQueue: Array.from(job.model.S), states: job.model.states };
    try {
      const ctx = await acquireGpu(flags);
      if (!ctx) return undefined;
      const [r] = await batchedJointRvi(ctx, [job], { flags: runFlags, signal, hooks });
      if (!r.values || !r.policy) {
        gpuLogger().warn({ stop: r.stop, sweeps: r.sweeps, ...described }, `f32 ${what} diverged; solving the joint model on the CPU`);
        return undefined;
      }
      return { values: r.values, policy: r.policy, sweeps: r.sweeps, adapter: ctx.adapterName };
    } catch (e) {
      if (e instanceof AbortError) throw e;
      gpuLogger().warn({ err: e, ...described }, 'GPU stage failed; solving the joint model on the CPU');
      return undefined;
    }
  };
  // Residual evaluations never change the policy, so the "stable policy" stop must not end them.
  const evalFlags = { ...flags, BATCHWISE_GPU_STABLE_CHECKS: Number.POSITIVE_INFINITY };
  const stage: JointGpuStage = Object.assign((job: JointStageJob, signal?: AbortSignal) => run({ model: job.model, warm: job.warm, tolerance: job.tolerance }, flags, signal, 'iteration'), {
    residuals: (model: ClassesModel) => async (policy: Int32Array, costs: Float64Array, signal?: AbortSignal) => {
      const r = await run({ model, warm: { policy }, tolerance: 0, resid: costs }, evalFlags, signal, 'residual evaluation');
      return r && { values: r.values, sweeps: r.sweeps };
    },
  });
  return stage;
}
