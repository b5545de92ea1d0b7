import { acquireGpu, type GpuContext } from '../../src/solve/gpu/device.js';
import { readFlags } from '../../src/solve/gpu/flags.js';

/**
 * The GPU for a test file, or why there is none. With BATCHWISE_GPU=required (CI, with
 * Mesa installed) a missing adapter throws, failing the file; otherwise the GPU tests are
 * skipped with the reason printed.
 */
export async function gpuForTests(): Promise<{ ctx?: GpuContext; skip: string }> {
  const flags = readFlags();
  if (flags.BATCHWISE_GPU === 'off') return announce('BATCHWISE_GPU=off');
  const ctx = await acquireGpu(flags); // throws GpuUnavailableError when required
  if (!ctx) {
    return announce('no WebGPU adapter (install Mesa for software rendering, or set BATCHWISE_GPU=required to make this a failure)');
  }
  return { ctx, skip: '' };
}

function announce(reason: string): { skip: string } {
  console.warn(`GPU tests skipped: ${reason}`);
  return { skip: ` (skipped: ${reason})` };
}
