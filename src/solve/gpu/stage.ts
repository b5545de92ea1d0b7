import { acquireGpu } from './device.js';
import type { GpuFlags } from './flags.js';
import { batchedRvi, type GpuRunHooks } from './rvi.js';
import type { GpuStage } from './solver.js';

/** The f32 stage of a single solve: a batch of one on the shared device. */
export function directStage(flags: GpuFlags, hooks?: GpuRunHooks): GpuStage {
  return async (job, signal) => {
    const ctx = await acquireGpu(flags);
    if (!ctx) return undefined;
    const [result] = await batchedRvi(ctx, [job], { flags, signal, hooks });
    return { result, adapter: ctx.adapterName };
  };
}
