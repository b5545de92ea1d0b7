import { acquireGpu } from './device.js';
import type { GpuFlags } from './flags.js';
import { mmppGpuRvi } from './mmppRvi.js';
import { batchedRvi, type GpuRunHooks } from './rvi.js';
import type { GpuStage } from './solver.js';

/**
 * The f32 stage of a single solve on the shared device: a batch of one through the one-phase
 * kernel (bellman_sweep.wgsl), or the (queue, phase) kernel (mmpp_bellman_sweep.wgsl) for
 * several phases.
 */
export function directStage(flags: GpuFlags, hooks?: GpuRunHooks): GpuStage {
  return async (job, signal) => {
    const ctx = await acquireGpu(flags);
    if (!ctx) return undefined;
    const result = job.model.M === 1 ? (await batchedRvi(ctx, [job], { flags, signal, hooks }))[0] : await mmppGpuRvi(ctx, job, { flags, signal, hooks });
    return { result, adapter: ctx.adapterName };
  };
}
