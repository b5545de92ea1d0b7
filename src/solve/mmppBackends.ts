import type { CompiledMmppModel } from '../model/mmpp/compile.js';
import type { Backend, Method } from '../model/scenario.js';
import { BackendUnavailableError } from './backends.js';
import { mmppPolicyIteration } from './cpu/mmppPi.js';
import { mmppRelativeValueIteration } from './cpu/mmppRvi.js';
import type { SolveOptions, SolverOutput } from './types.js';

/** A solver of the (s, j) model of spec §7; same options, output and certificate as `Solver`. */
export interface MmppSolver {
  readonly backend: string;
  solve(model: CompiledMmppModel, options: SolveOptions): Promise<SolverOutput>;
}

export const cpuMmppPolicyIteration: MmppSolver = { backend: 'cpu', solve: mmppPolicyIteration };
export const cpuMmppValueIteration: MmppSolver = { backend: 'cpu', solve: mmppRelativeValueIteration };

/** A GPU solver for MMPP models, when one is registered (src/solve/gpu may add one later). */
export type MmppGpuPicker = (backend: Backend, method: Method, model: CompiledMmppModel) => Promise<MmppSolver | undefined>;

let gpuPicker: MmppGpuPicker | undefined;

export function registerMmppGpuPicker(p: MmppGpuPicker | undefined): void {
  gpuPicker = p;
}

/**
 * CPU policy iteration (or RVI when asked for) unless a GPU picker is registered and takes the
 * model. Backend GPU without one is refused with a reason, as for the Poisson model.
 */
export async function resolveMmppSolver(backend: Backend, method: Method, model: CompiledMmppModel): Promise<MmppSolver> {
  const cpu = method === 'VALUE_ITERATION' ? cpuMmppValueIteration : cpuMmppPolicyIteration;
  if (backend === 'CPU') return cpu;
  const gpu = gpuPicker ? await gpuPicker(backend, method, model) : undefined;
  if (gpu) return gpu;
  if (backend === 'GPU') {
    throw new BackendUnavailableError('the GPU backend does not solve MMPP arrival processes yet (use CPU or AUTO)');
  }
  return cpu;
}
