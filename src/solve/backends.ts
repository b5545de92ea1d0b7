import { sweepWork as classesSweepWork } from '../model/classes/bellman.js';
import type { ClassesModel } from '../model/classes/compile.js';
import type { CompiledModel } from '../model/compile.js';
import { ScenarioError } from '../model/errors.js';
import type { Backend, Method } from '../model/scenario.js';
import { cpuPolicyIteration } from './cpu/pi.js';
import { cpuValueIteration } from './cpu/rvi.js';
import { gpuMightPayOff, modelSize, sweepWork } from './gpu/autoRule.js';
import { readFlags } from './gpu/flags.js';
import { beforeNativeLoad } from './nativeGate.js';
import type { GpuProvider, JointGpuStage, JointStageJob, Solver } from './types.js';

/** Raised when a backend that was asked for explicitly cannot run here. */
export class BackendUnavailableError extends ScenarioError {
  constructor(reason: string) {
    super('solver.backend', reason);
  }
}

export function cpuSolver(method: Method): Solver {
  return method === 'VALUE_ITERATION' ? cpuValueIteration : cpuPolicyIteration;
}

let gpuProvider: GpuProvider | undefined;
let defaultGpuProvider: Promise<GpuProvider | undefined> | undefined;
let gpuLoadError: string | undefined;

/** Replaces the default WebGPU provider (tests, embedders); undefined restores the default. */
export function registerGpuProvider(p: GpuProvider | undefined): void {
  gpuProvider = p;
}

/**
 * The registered provider, else the WebGPU one (src/solve/gpu/provider.ts), loaded on first
 * need so that CPU-only use (BATCHWISE_GPU=off, or AUTO on models too small to ever pay off)
 * never loads the native module. A module that fails to load leaves the CPU; GPU requests
 * then say why.
 */
async function currentGpuProvider(backend: Backend, work: number): Promise<GpuProvider | undefined> {
  if (gpuProvider) return gpuProvider;
  const flags = readFlags();
  if (flags.BATCHWISE_GPU === 'off') return undefined;
  if (backend === 'AUTO' && !gpuMightPayOff(work, flags)) return undefined;
  if (!defaultGpuProvider) await beforeNativeLoad();
  defaultGpuProvider ??= import('./gpu/provider.js').then(
    (m) => m.createGpuProvider(cpuSolver('POLICY_ITERATION')),
    (e: unknown) => {
      gpuLoadError = e instanceof Error ? e.message : String(e);
      return undefined;
    },
  );
  return defaultGpuProvider;
}

/**
 * Picks the solver for a model: CPU policy iteration (or RVI when asked for) for backend CPU;
 * the WebGPU solver (f32 on the GPU, f64 polish by CPU policy iteration) for backend GPU, and
 * for AUTO where the AUTO rule (src/solve/gpu/autoRule.ts, docs/gpu.md) says the GPU pays off.
 * Backend GPU without a usable adapter is refused with the reason.
 */
export async function resolveSolver(backend: Backend, method: Method, model: CompiledModel): Promise<Solver> {
  if (backend === 'CPU') return cpuSolver(method);
  const provider = await currentGpuProvider(backend, sweepWork([modelSize(model)]));
  const gpu = provider ? await provider.pick(backend, method, model) : undefined;
  if (gpu) return gpu;
  if (backend === 'GPU') throw gpuUnavailable();
  return cpuSolver(method);
}

/**
 * The GPU's f32 stage for a joint multi-class model (docs/model.md §10) by the same rule as
 * resolveSolver, its sweep work the joint sweep's multiply-adds; undefined to solve on the CPU
 * alone. Backend GPU without a usable adapter is refused with the reason.
 */
export async function resolveJointStage(backend: Backend, model: ClassesModel): Promise<JointGpuStage | undefined> {
  if (backend === 'CPU') return undefined;
  const provider = await currentGpuProvider(backend, classesSweepWork(model));
  const stage = provider ? await provider.pickJoint(backend, model) : undefined;
  if (stage || backend !== 'GPU') return stage;
  throw gpuUnavailable();
}

/**
 * The decision resolveSolver and resolveJointStage make, for a model of this sweep work: whether
 * the GPU solves it here (backend GPU: whenever an adapter can be had; AUTO: where the AUTO rule
 * says it pays off on this adapter). Opens no device where AUTO cannot pay off. SolveBatch routes
 * AUTO scenarios with classes by it (src/service/batch/gpuExecutor.ts).
 */
export async function gpuSolvesWork(backend: Backend, work: number): Promise<boolean> {
  if (backend === 'CPU') return false;
  const provider = await currentGpuProvider(backend, work);
  return provider ? provider.pays(backend, work) : false;
}

/**
 * A batch's joint stage (a collector's) for a backend-AUTO scenario the caller decided by the rule
 * (SolveBatch): each box goes on it where resolveJointStage would take the GPU for that box, the
 * rest start on the CPU, as a single Solve's boxes do.
 */
export function autoJointStage(stage: JointGpuStage): JointGpuStage {
  const gated = async (job: JointStageJob, signal?: AbortSignal) => ((await gpuSolvesWork('AUTO', classesSweepWork(job.model))) ? stage(job, signal) : undefined);
  return Object.assign(gated, stage.residuals ? { residuals: stage.residuals } : {});
}

function gpuUnavailable(): BackendUnavailableError {
  const why = readFlags().BATCHWISE_GPU === 'off' ? 'BATCHWISE_GPU=off' : gpuLoadError ? `the WebGPU module did not load: ${gpuLoadError}` : 'no WebGPU adapter';
  return new BackendUnavailableError(`GPU backend is not available on this server (${why})`);
}
