import { sweepWork as classesSweepWork } from '../../model/classes/bellman.js';
import type { GpuProvider, Solver } from '../types.js';
import type { Backend } from '../../model/scenario.js';
import { gpuMightPayOff, gpuPaysOff, modelSize, sweepWork } from './autoRule.js';
import { acquireGpu, GpuUnavailableError } from './device.js';
import { readFlags, type GpuFlags } from './flags.js';
import { gpuLogger } from './log.js';
import type { GpuRunHooks } from './rvi.js';
import { gpuSolver } from './solver.js';
import { directJointStage, directStage } from './stage.js';

export interface GpuProviderOptions {
  readonly flags?: GpuFlags;
  /** Test hooks (e.g. destroy the device mid-solve). */
  readonly hooks?: GpuRunHooks;
}

/**
 * The provider behind backend GPU and AUTO (src/solve/backends.ts): GPU gives the WebGPU
 * solver whenever a device can be had; AUTO gives it only where the AUTO rule says it pays
 * off for the model's sweep work, and decides small models without opening a device at all.
 * `polish` is the f64 CPU policy iteration (passed in: src/solve/gpu does not import
 * src/solve/cpu).
 */
export function createGpuProvider(polish: Solver, opts: GpuProviderOptions = {}): GpuProvider {
  const flags = opts.flags ?? readFlags();
  const solver = gpuSolver(directStage(flags, opts.hooks), polish);
  const joint = directJointStage(flags, opts.hooks);
  return {
    pays: (backend, work) => gpuPays(flags, backend, work),
    pick: async (backend, _method, model) => ((await gpuPays(flags, backend, sweepWork([modelSize(model)]))) ? solver : undefined),
    pickJoint: async (backend, model) => ((await gpuPays(flags, backend, classesSweepWork(model))) ? joint : undefined),
  };
}

/**
 * The GPU / AUTO decision for a model of this sweep work: true for backend GPU whenever a device
 * can be had, for AUTO only where the AUTO rule says the GPU pays off; false to use the CPU.
 * Small models are decided for AUTO without opening a device.
 */
async function gpuPays(flags: GpuFlags, backend: Backend, work: number): Promise<boolean> {
  if (flags.BATCHWISE_GPU === 'off' || backend === 'CPU') return false;
  if (backend === 'AUTO' && !gpuMightPayOff(work, flags)) return false;
  let ctx;
  try {
    ctx = await acquireGpu(flags);
  } catch (e) {
    // BATCHWISE_GPU=required without an adapter: say so; GPU requests are then refused.
    if (!(e instanceof GpuUnavailableError)) throw e;
    gpuLogger().error({ err: e }, 'no GPU although BATCHWISE_GPU=required');
    return false;
  }
  if (!ctx) return false;
  return backend === 'GPU' || gpuPaysOff(work, ctx.kind, flags);
}
