import type { ClassesModel } from '../../model/classes/compile.js';
import type { Overflow } from '../../model/classes/bellman.js';
import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import { resolveJointStage } from '../backends.js';
import type { BellmanOperator } from '../operator.js';
import { refineOnGpu } from './refine.js';

/**
 * Values to start a box's f64 RVI from: the smaller box's (extrapolated), or with a GPU stage
 * (backend GPU, AUTO where it pays off) its f32 values refined against f64 residuals (refine.ts).
 */
export async function gpuStart(
  model: ClassesModel,
  operator: (overflow: Overflow) => BellmanOperator,
  start: Float64Array | undefined,
  tolerance: number,
  signal: AbortSignal | undefined,
  ran: (f: { adapter: string; sweeps: number; cpuSteps: number }) => void,
  backend: ValidatedClassesScenario['solver']['backend'],
): Promise<Float64Array | undefined> {
  const stage = await resolveJointStage(backend, model);
  const f32 = stage ? await stage({ model, ...(start ? { warm: { values: start } } : {}), tolerance }, signal) : undefined;
  if (!stage || !f32) return start;
  ran({ ...f32, cpuSteps: 0 });
  if (!stage.residuals) return f32.values;
  const refined = await refineOnGpu(operator('extrapolate'), stage.residuals(model), f32.values, tolerance, signal);
  ran({ adapter: f32.adapter, sweeps: refined.gpuSweeps, cpuSteps: refined.rounds });
  return refined.values;
}

