import { readFlags, type GpuFlags } from '../src/solve/gpu/index.js';
import { median, timeRuns } from './stats.js';

/** Flags for a timing run of exactly `sweeps` Bellman sweeps in one submit (no evaluation sweeps, no early stop). */
export function sweepFlags(sweeps: number): GpuFlags {
  return { ...readFlags(), BATCHWISE_GPU_EVAL_SWEEPS: 0, BATCHWISE_GPU_CYCLES_PER_CHECK: sweeps, BATCHWISE_GPU_MAX_SWEEPS: sweeps, BATCHWISE_GPU_STABLE_CHECKS: 1e9, BATCHWISE_GPU_STALL_CHECKS: 1e9 };
}

/**
 * Milliseconds per GPU sweep: a run of k sweeps in one submit minus a run of one, over k − 1, so
 * the upload, submit and readback cost drops out; also that one-sweep run's time.
 */
export async function gpuSweepMs(run: (flags: GpuFlags) => Promise<unknown>, k: number, reps: number): Promise<{ perSweep: number; oneSubmit: number }> {
  const many = await timeRuns(() => run(sweepFlags(k)), reps, 1);
  const one = await timeRuns(() => run(sweepFlags(1)), reps, 1);
  return { perSweep: Math.max(0, (median(many) - median(one)) / (k - 1)), oneSubmit: median(one) };
}
