import type { CompiledModel } from '../../model/compile.js';
import { AbortError } from '../../model/errors.js';
import type { Solver, SolveOptions, SolverOutput } from '../types.js';
import { gpuLogger } from './log.js';
import type { GpuRviJob, GpuRviResult } from './rvi.js';

/** What the f32 stage gave for one model, and on which adapter. */
export interface GpuStageResult {
  readonly result: GpuRviResult;
  readonly adapter: string;
}

/**
 * Runs the f32 stage for one model: straight on the device (single solves) or through a
 * batch collector (batched solves). Undefined when no GPU is to be had.
 */
export type GpuStage = (job: GpuRviJob, signal?: AbortSignal) => Promise<GpuStageResult | undefined>;

/**
 * The WebGPU solver: f32 modified policy iteration on the GPU finds a near-optimal policy
 * fast; then f64 policy iteration on the CPU (`polish`, warm-started from that policy)
 * improves it until it is stable and certifies it: the bounds returned are those of one
 * f64 Bellman step at the policy's exact values, never the f32 ones. Any GPU failure or
 * divergence is logged and the solve finishes on the CPU, so a request never fails because
 * the GPU did; AbortError propagates.
 */
export function gpuSolver(stage: GpuStage, polish: Solver): Solver {
  return {
    backend: 'webgpu',
    async solve(model: CompiledModel, opts: SolveOptions): Promise<SolverOutput> {
      const described = { maxQueue: model.S, phases: model.M, batch: model.B };
      let gpu: GpuStageResult | undefined;
      try {
        gpu = await stage({ model, warm: opts.warmStart, tolerance: opts.tolerance }, opts.signal);
      } catch (e) {
        if (e instanceof AbortError) throw e;
        gpuLogger().warn({ err: e, ...described }, 'GPU stage failed; finishing the solve on the CPU');
      }
      if (gpu && !gpu.result.policy) {
        gpuLogger().warn({ stop: gpu.result.stop, sweeps: gpu.result.sweeps, ...described }, 'f32 iteration diverged; finishing the solve on the CPU');
      }
      return polishOnCpu(model, opts, gpu, polish);
    },
  };
}

async function polishOnCpu(model: CompiledModel, opts: SolveOptions, gpu: GpuStageResult | undefined, polish: Solver): Promise<SolverOutput> {
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
}
