import type { CompiledMmppModel } from '../model/mmpp/compile.js';
import type { Backend, Method } from '../model/scenario.js';
import { BackendUnavailableError } from './backends.js';
import { mmppPolicyIteration } from './cpu/mmppPi.js';
import { mmppRelativeValueIteration } from './cpu/mmppRvi.js';
import { gpuMightPayOff, sweepWork } from './gpu/autoRule.js';
import { readFlags } from './gpu/flags.js';
import { mmppModelSize } from './gpu/mmppSize.js';
import type { SolveOptions, SolverOutput } from './types.js';

/** A solver of the (s, j) model of spec §7; same options, output and certificate as `Solver`. */
export interface MmppSolver {
  readonly backend: string;
  solve(model: CompiledMmppModel, options: SolveOptions): Promise<SolverOutput>;
}

export const cpuMmppPolicyIteration: MmppSolver = { backend: 'cpu', solve: mmppPolicyIteration };
export const cpuMmppValueIteration: MmppSolver = { backend: 'cpu', solve: mmppRelativeValueIteration };

/** A GPU solver for MMPP models: the model's solver when a usable GPU takes it, else undefined. */
export type MmppGpuPicker = (backend: Backend, method: Method, model: CompiledMmppModel) => Promise<MmppSolver | undefined>;

let gpuPicker: MmppGpuPicker | undefined;
let defaultPicker: Promise<MmppGpuPicker | undefined> | undefined;
let gpuLoadError: string | undefined;

/** Replaces the default WebGPU MMPP picker (tests, embedders); undefined restores the default. */
export function registerMmppGpuPicker(p: MmppGpuPicker | undefined): void {
  gpuPicker = p;
}

/**
 * The registered picker, else the WebGPU one (src/solve/gpu/mmppSolver.ts), loaded on first
 * need like the Poisson provider (backends.ts): BATCHWISE_GPU=off, and AUTO on models whose
 * sweep work no adapter kind pays off at, never load the native module.
 */
async function currentPicker(backend: Backend, model: CompiledMmppModel): Promise<MmppGpuPicker | undefined> {
  if (gpuPicker) return gpuPicker;
  const flags = readFlags();
  if (flags.BATCHWISE_GPU === 'off') return undefined;
  if (backend === 'AUTO' && !gpuMightPayOff(sweepWork([mmppModelSize(model)]), flags)) return undefined;
  defaultPicker ??= import('./gpu/mmppSolver.js').then(
    (m) => m.createMmppGpuPicker(cpuMmppPolicyIteration),
    (e: unknown) => {
      gpuLoadError = e instanceof Error ? e.message : String(e);
      return undefined;
    },
  );
  return defaultPicker;
}

/**
 * CPU policy iteration (or RVI when asked for) for backend CPU; the WebGPU MMPP solver (f32
 * on the GPU, f64 polish by CPU policy iteration) for backend GPU, and for AUTO where the
 * AUTO rule says the GPU pays off. Backend GPU without a usable adapter is refused with the
 * reason, as for the Poisson model.
 */
export async function resolveMmppSolver(backend: Backend, method: Method, model: CompiledMmppModel): Promise<MmppSolver> {
  const cpu = method === 'VALUE_ITERATION' ? cpuMmppValueIteration : cpuMmppPolicyIteration;
  if (backend === 'CPU') return cpu;
  const picker = await currentPicker(backend, model);
  const gpu = picker ? await picker(backend, method, model) : undefined;
  if (gpu) return gpu;
  if (backend === 'GPU') {
    const why = readFlags().BATCHWISE_GPU === 'off' ? 'BATCHWISE_GPU=off' : gpuLoadError ? `the WebGPU module did not load: ${gpuLoadError}` : 'no WebGPU adapter';
    throw new BackendUnavailableError(`GPU backend is not available on this server (${why})`);
  }
  return cpu;
}
