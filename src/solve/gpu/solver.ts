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
 * f64 Bellman step at the policy's exact values, never the f32 ones. Any GPU failure is
 * logged and the solve finishes on the CPU, so a request never fails because the GPU did.
 */
export function gpuSolver(stage: GpuStage, polish: Solver): Solver {
  return gpuStageThenPolish(stage, polish, (model) => ({ maxQueue: model.S }));
}

/** A model the GPU solvers take: the Poisson one (CompiledModel) or the MMPP one. */
interface StagedModel {
  readonly S: number;
  readonly B: number;
}

/** The f32 stage's job for one model (GpuRviJob, MmppGpuRviJob). */
interface StageJob<M> {
  readonly model: M;
  readonly warm?: SolveOptions['warmStart'];
  readonly tolerance: number;
}

/** What a solver of one model kind looks like (Solver for Poisson, MmppSolver for MMPP). */
interface ModelSolver<M> {
  readonly backend: string;
  solve(model: M, options: SolveOptions): Promise<SolverOutput>;
}

/**
 * The split shared by the Poisson and the MMPP GPU solvers: run the f32 `stage`, log a GPU
 * failure or divergence (with `describe(model)` in the log record), and finish with the f64
 * `polish`, warm-started from the f32 policy when there is one. AbortError propagates.
 */
export function gpuStageThenPolish<M extends StagedModel>(
  stage: (job: StageJob<M>, signal?: AbortSignal) => Promise<GpuStageResult | undefined>,
  polish: ModelSolver<M>,
  describe: (model: M) => Record<string, unknown>,
): ModelSolver<M> {
  return {
    backend: 'webgpu',
    async solve(model: M, opts: SolveOptions): Promise<SolverOutput> {
      let gpu: GpuStageResult | undefined;
      try {
        gpu = await stage({ model, warm: opts.warmStart, tolerance: opts.tolerance }, opts.signal);
      } catch (e) {
        if (e instanceof AbortError) throw e;
        gpuLogger().warn({ err: e, ...describe(model), batch: model.B }, 'GPU stage failed; finishing the solve on the CPU');
      }
      if (gpu && !gpu.result.policy) {
        gpuLogger().warn({ stop: gpu.result.stop, sweeps: gpu.result.sweeps, ...describe(model) }, 'f32 iteration diverged; finishing the solve on the CPU');
      }
      return polishOnCpu(model, opts, gpu, polish);
    },
  };
}

async function polishOnCpu<M>(model: M, opts: SolveOptions, gpu: GpuStageResult | undefined, polish: ModelSolver<M>): Promise<SolverOutput> {
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
