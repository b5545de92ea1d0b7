import { acquireGpu } from './device.js';
import type { GpuFlags } from './flags.js';
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
