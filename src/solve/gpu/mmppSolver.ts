import type { CompiledMmppModel } from '../../model/mmpp/compile.js';
import type { MmppGpuPicker, MmppSolver } from '../mmppBackends.js';
import { acquireGpu } from './device.js';
import { readFlags, type GpuFlags } from './flags.js';
import { mmppGpuRvi, type MmppGpuRviJob } from './mmppRvi.js';
import { mmppModelSize } from './mmppSize.js';
import { pickGpuSolver, type GpuProviderOptions } from './provider.js';
import type { GpuRunHooks } from './rvi.js';
import { gpuStageThenPolish, type GpuStageResult } from './solver.js';

/** Runs the f32 stage of one MMPP model; undefined when no GPU is to be had. */
export type MmppGpuStage = (job: MmppGpuRviJob, signal?: AbortSignal) => Promise<GpuStageResult | undefined>;

/** The f32 stage on the shared device (acquireGpu), as directStage is for the Poisson model. */
export function directMmppStage(flags: GpuFlags, hooks?: GpuRunHooks): MmppGpuStage {
  return async (job, signal) => {
    const ctx = await acquireGpu(flags);
    if (!ctx) return undefined;
    const result = await mmppGpuRvi(ctx, job, { flags, signal, hooks });
    return { result, adapter: ctx.adapterName };
  };
}

/**
 * The WebGPU solver of the MMPP model: f32 modified policy iteration on the GPU finds a
 * near-optimal (s, j) policy; then the f64 CPU MMPP policy iteration (`polish`), warm-started
 * from that policy, improves it until it is stable and certifies it with the Odoni bounds of
 * one f64 Bellman step at its exact values — the same split and certificate as the Poisson
 * GPU solver (solver.ts). Any GPU failure is logged and the solve finishes on the CPU;
 * cancellation propagates as AbortError; progress comes from the polish, as for Poisson.
 */
export function mmppGpuSolver(stage: MmppGpuStage, polish: MmppSolver): MmppSolver {
  return gpuStageThenPolish(stage, polish, (model: CompiledMmppModel) => ({ maxQueue: model.S, phases: model.M }));
}

/** The options of the Poisson provider (provider.ts); the hooks may also abort mid-solve. */
export type MmppGpuPickerOptions = GpuProviderOptions;

/**
 * The picker behind backend GPU / AUTO for MMPP models (registered by src/solve/mmppBackends.ts):
 * GPU gets the WebGPU MMPP solver whenever a device can be had; AUTO only where the Poisson
 * AUTO rule says the GPU pays off for the model's sweep work. `polish` is the f64 CPU MMPP
 * policy iteration (passed in: src/solve/gpu does not import src/solve/cpu).
 */
export function createMmppGpuPicker(polish: MmppSolver, opts: MmppGpuPickerOptions = {}): MmppGpuPicker {
  const flags = opts.flags ?? readFlags();
  const solver = mmppGpuSolver(directMmppStage(flags, opts.hooks), polish);
  return (backend, _method, model) => pickGpuSolver(flags, backend, () => mmppModelSize(model), solver);
}
