import { ScenarioError } from '../model/errors.js';
import type { Backend, Method } from '../model/scenario.js';
import { cpuPolicyIteration } from './cpu/pi.js';
import { cpuValueIteration } from './cpu/rvi.js';
import type { Solver } from './types.js';

/** Raised when a backend that was asked for explicitly cannot run here. */
export class BackendUnavailableError extends ScenarioError {
  constructor(reason: string) {
    super('solver.backend', reason);
  }
}

export function cpuSolver(method: Method): Solver {
  return method === 'VALUE_ITERATION' ? cpuValueIteration : cpuPolicyIteration;
}

/**
 * Picks the solver for a request. GPU solvers register themselves here (see src/solve/gpu);
 * until one is registered, backend GPU is refused and AUTO uses the CPU.
 */
export interface GpuProvider {
  /** A GPU solver when an adapter is usable for this model size, or undefined to use the CPU. */
  pick(backend: Backend, method: Method, size: { states: number; batch: number; pmfWidth: number }): Promise<Solver | undefined>;
}

let gpuProvider: GpuProvider | undefined;

export function registerGpuProvider(p: GpuProvider | undefined): void {
  gpuProvider = p;
}

export async function resolveSolver(
  backend: Backend,
  method: Method,
  size: { states: number; batch: number; pmfWidth: number },
): Promise<Solver> {
  if (backend === 'CPU') return cpuSolver(method);
  const gpu = gpuProvider ? await gpuProvider.pick(backend, method, size) : undefined;
  if (gpu) return gpu;
  if (backend === 'GPU') throw new BackendUnavailableError('GPU backend is not available on this server (no WebGPU adapter)');
  return cpuSolver(method);
}
