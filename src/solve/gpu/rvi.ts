import type { CompiledModel } from '../../model/compile.js';
import type { GpuContext } from './device.js';
import { bellmanSweepKernel } from './kernels.js';
import { runInGroups } from './bindingGroups.js';
import { packBatch, splitForLimits, type WarmValues } from './pack.js';
import { bindingLimit, runPacked, type BatchedRviOptions, type GpuRviResult } from './stageLoop.js';

export { bindingLimit, type BatchedRviOptions, type GpuRunHooks, type GpuRviResult } from './stageLoop.js';

/** One scenario of a batched f32 RVI run: a compiled model with any number of phases M. */
export interface GpuRviJob {
  readonly model: CompiledModel;
  /** Relative values h̃ and/or a policy (length (S+1)·M, flat x = s·M + j) to start from. */
  readonly warm?: WarmValues;
  /** The solve's requested relative gap; the f32 stage stops at max(this, the f32 floor). */
  readonly tolerance: number;
}

/**
 * Modified policy iteration in f32 for a whole batch of (queue, phase) models on the GPU: every
 * sweep updates every state (s, j) of every still-active scenario in one dispatch, whatever each
 * scenario's number of phases M (Poisson scenarios are M = 1), through the one stage loop
 * (stageLoop.ts). Batches too big for one binding run in parts.
 */
export function batchedRvi(ctx: GpuContext, jobs: readonly GpuRviJob[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const groups = splitForLimits(jobs.map((j) => j.model), bindingLimit(ctx));
  return runInGroups(jobs, groups, (group) => runGroup(ctx, group, opts));
}

function runGroup(ctx: GpuContext, jobs: readonly GpuRviJob[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const packed = packBatch(
    jobs.map((j) => j.model),
    jobs.map((j) => j.warm),
    opts.flags.BATCHWISE_GPU_MAX_ROW_EXCESS,
  );
  const total = packed.totalStates;
  return runPacked(
    ctx,
    packed,
    (upload) => ({ actions: upload(packed.actions.buffer), coef: upload(packed.coef) }),
    async (res, buffers, wg) => ({
      improve: [await res.bind(bellmanSweepKernel(wg), buffers, { total_states: total, greedy: 1 }, { threads: total })],
      evaluate: [await res.bind(bellmanSweepKernel(wg), buffers, { total_states: total, greedy: 0 }, { threads: total })],
    }),
    jobs.map((j) => j.tolerance),
    opts,
  );
}
