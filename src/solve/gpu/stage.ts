import { AbortError } from '../../model/errors.js';
import type { JointGpuStage } from '../types.js';
import { acquireGpu } from './device.js';
import type { GpuFlags } from './flags.js';
import { batchedJointRvi } from './jointRvi.js';
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
 * The f32 stage of a joint multi-class solve on the shared device (classes_sweep.wgsl). A GPU
 * failure or a diverged f32 run is logged and gives nothing, so the solve goes on on the CPU;
 * AbortError propagates.
 */
export function directJointStage(flags: GpuFlags, hooks?: GpuRunHooks): JointGpuStage {
  return async (job, signal) => {
    const described = { maxQueue: Array.from(job.model.S), states: job.model.states };
    try {
      const ctx = await acquireGpu(flags);
      if (!ctx) return undefined;
      const [r] = await batchedJointRvi(ctx, [{ model: job.model, warm: job.warm, tolerance: job.tolerance }], { flags, signal, hooks });
      if (!r.values || !r.policy) {
        gpuLogger().warn({ stop: r.stop, sweeps: r.sweeps, ...described }, 'f32 iteration diverged; solving the joint model on the CPU');
        return undefined;
      }
      return { values: r.values, policy: r.policy, sweeps: r.sweeps, adapter: ctx.adapterName };
    } catch (e) {
      if (e instanceof AbortError) throw e;
      gpuLogger().warn({ err: e, ...described }, 'GPU stage failed; solving the joint model on the CPU');
      return undefined;
    }
  };
}
