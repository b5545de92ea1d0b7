import type { ClassesModel } from '../../model/classes/compile.js';
import type { Overflow } from '../../model/classes/bellman.js';
import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import { resolveJointStage } from '../backends.js';
import type { BellmanOperator } from '../operator.js';
import type { JointGpuStage } from '../types.js';
import { refineOnGpu } from './refine.js';

/** What a box's start cost on the GPU: its adapter, the f32 sweeps, and the refinement's f64 steps on the CPU. */
export interface GpuRun {
  readonly adapter: string;
  readonly sweeps: number;
  readonly cpuSteps: number;
}

/**
 * Values to start a box's f64 RVI from: the smaller box's (extrapolated), or with a GPU stage
 * (backend GPU, AUTO where it pays off) its f32 values refined against f64 residuals (refine.ts),
 * with what that ran. `given` replaces resolveJointStage's pick (a batch's collector, which applies
 * the AUTO rule to its rounds).
 */
export async function gpuStart(
  model: ClassesModel,
  operator: (overflow: Overflow) => BellmanOperator,
  start: Float64Array | undefined,
  tolerance: number,
  signal: AbortSignal | undefined,
  backend: ValidatedClassesScenario['solver']['backend'],
  given?: JointGpuStage,
): Promise<{ values?: Float64Array; gpu?: GpuRun }> {
  const stage = given && backend !== 'CPU' ? given : await resolveJointStage(backend, model);
  const f32 = stage ? await stage({ model, ...(start ? { warm: { values: start } } : {}), tolerance }, signal) : undefined;
  if (!stage || !f32) return { values: start };
  if (!stage.residuals) return { values: f32.values, gpu: { adapter: f32.adapter, sweeps: f32.sweeps, cpuSteps: 0 } };
  const refined = await refineOnGpu(operator('extrapolate'), stage.residuals(model), f32.values, tolerance, signal);
  return { values: refined.values, gpu: { adapter: f32.adapter, sweeps: f32.sweeps + refined.gpuSweeps, cpuSteps: refined.rounds } };
}
