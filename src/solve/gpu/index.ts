/**
 * The WebGPU solver's public entry points (docs/gpu.md). Importing this module loads the
 * native WebGPU binding; src/solve/backends.ts loads it lazily for backend GPU / AUTO.
 */
export { acquireGpu, releaseGpu, GpuUnavailableError, type GpuContext } from './device.js';
export { releaseGpuIfOpen } from './lifecycle.js';
export { gpuPaysOff, gpuMightPayOff, sweepWork, type AdapterKind, type ModelSize } from './autoRule.js';
export { createGpuProvider, type GpuProviderOptions } from './provider.js';
export { gpuSolver, type GpuStage, type GpuStageResult } from './solver.js';
export { directStage } from './stage.js';
export { readFlags, DEFAULT_FLAGS, type GpuFlags } from './flags.js';
export { setGpuLogger, gpuLogger } from './log.js';
export { ShaderError } from './shaderSource.js';
export { GpuError } from './runner.js';
export { batchedRvi, type GpuRunHooks, type GpuRviJob, type GpuRviResult } from './rvi.js';
