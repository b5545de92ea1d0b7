import type { CompiledMmppModel } from '../../model/mmpp/compile.js';
import { AbortError } from '../../model/errors.js';
import type { MmppGpuPicker, MmppSolver } from '../mmppBackends.js';
import type { SolveOptions, SolverOutput } from '../types.js';
import { gpuMightPayOff, gpuPaysOff, sweepWork } from './autoRule.js';
import { acquireGpu, GpuUnavailableError } from './device.js';
import { readFlags, type GpuFlags } from './flags.js';
import { gpuLogger } from './log.js';
import { mmppGpuRvi, type MmppGpuRviJob } from './mmppRvi.js';
import { mmppModelSize } from './mmppSize.js';
import type { GpuRunHooks } from './rvi.js';
import type { GpuStageResult } from './solver.js';

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
  return {
    backend: 'webgpu',
    async solve(model: CompiledMmppModel, opts: SolveOptions): Promise<SolverOutput> {
      let gpu: GpuStageResult | undefined;
      try {
        gpu = await stage({ model, warm: opts.warmStart, tolerance: opts.tolerance }, opts.signal);
      } catch (e) {
        if (e instanceof AbortError) throw e;
        gpuLogger().warn({ err: e, maxQueue: model.S, phases: model.M, batch: model.B }, 'GPU stage failed; finishing the solve on the CPU');
      }
      if (gpu && !gpu.result.policy) {
        gpuLogger().warn({ stop: gpu.result.stop, sweeps: gpu.result.sweeps, maxQueue: model.S, phases: model.M }, 'f32 iteration diverged; finishing the solve on the CPU');
      }
      const policy = gpu?.result.policy;
      const out = await polish.solve(model, { ...opts, warmStart: policy ? { policy } : opts.warmStart });
      if (!gpu || !policy) return out;
      return {
        ...out,
        backend: 'webgpu',
        adapter: gpu.adapter,
        method: `webgpu-mpi-f32+${out.method}`,
        iterations: gpu.result.sweeps + out.iterations,
        gpuIterations: gpu.result.sweeps,
        polishSteps: out.iterations,
      };
    },
  };
}

export interface MmppGpuPickerOptions {
  readonly flags?: GpuFlags;
  /** Test hooks (e.g. destroy the device or abort mid-solve). */
  readonly hooks?: GpuRunHooks;
}

/**
 * The picker behind backend GPU / AUTO for MMPP models (registered by src/solve/mmppBackends.ts):
 * GPU gets the WebGPU MMPP solver whenever a device can be had; AUTO only where the Poisson
 * AUTO rule says the GPU pays off for the model's sweep work. `polish` is the f64 CPU MMPP
 * policy iteration (passed in: src/solve/gpu does not import src/solve/cpu).
 */
export function createMmppGpuPicker(polish: MmppSolver, opts: MmppGpuPickerOptions = {}): MmppGpuPicker {
  const flags = opts.flags ?? readFlags();
  const solver = mmppGpuSolver(directMmppStage(flags, opts.hooks), polish);
  return async (backend, _method, model) => {
    if (flags.BATCHWISE_GPU === 'off' || backend === 'CPU') return undefined;
    const work = sweepWork([mmppModelSize(model)]);
    if (backend === 'AUTO' && !gpuMightPayOff(work, flags)) return undefined;
    let ctx;
    try {
      ctx = await acquireGpu(flags);
    } catch (e) {
      if (!(e instanceof GpuUnavailableError)) throw e;
      gpuLogger().error({ err: e }, 'no GPU although BATCHWISE_GPU=required');
      return undefined;
    }
    if (!ctx) return undefined;
    if (backend === 'AUTO' && !gpuPaysOff(work, ctx.kind, flags)) return undefined;
    return solver;
  };
}
