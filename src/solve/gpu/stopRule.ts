import type { GpuFlags } from './flags.js';

/**
 * Why the f32 stage of one scenario stopped. f32 RVI cannot certify the spec's tolerances
 * (its bound gap stalls near 1e-5..1e-1 on the spec cases), so besides convergence it also
 * stops when the gap no longer falls or the greedy policy no longer changes: the f64 polish
 * takes over from there.
 */
export type GpuStop = 'converged' | 'stalled' | 'stable' | 'max-sweeps' | 'diverged';

/** Per-scenario stop rule, fed the bounds read back every k sweeps. */
export class StopTracker {
  done = false;
  stop: GpuStop = 'max-sweeps';
  lower = Number.NaN;
  upper = Number.NaN;
  sweeps = 0;
  private best = Number.POSITIVE_INFINITY;
  private sinceBest = 0;
  private unchanged = 0;

  constructor(
    private readonly flags: GpuFlags,
    private readonly tolerance: number,
  ) {}

  check(lower: number, upper: number, changes: number, sweeps: number, atCap: boolean): void {
    this.lower = lower;
    this.upper = upper;
    this.sweeps = sweeps;
    // The sweep's "no action yet" value is 3e38: bounds that large mean every action overflowed.
    if (!(Math.abs(lower) < 1e37) || !(Math.abs(upper) < 1e37)) return this.finish('diverged');
    const gap = (upper - lower) / Math.max(Math.abs(lower), Number.MIN_VALUE);
    if (gap <= Math.max(this.tolerance, this.flags.BATCHWISE_GPU_F32_TOLERANCE)) return this.finish('converged');
    if (gap < 0.99 * this.best) {
      this.best = gap;
      this.sinceBest = 0;
    } else if (++this.sinceBest >= this.flags.BATCHWISE_GPU_STALL_CHECKS) {
      return this.finish('stalled');
    }
    this.unchanged = changes === 0 ? this.unchanged + 1 : 0;
    if (this.unchanged >= this.flags.BATCHWISE_GPU_STABLE_CHECKS) return this.finish('stable');
    if (atCap) this.finish('max-sweeps');
  }

  private finish(stop: GpuStop): void {
    this.done = true;
    this.stop = stop;
  }
}
