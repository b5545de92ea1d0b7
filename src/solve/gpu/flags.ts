/**
 * Tuning and debug settings of the WebGPU solver, one named flag each, with its default.
 * A flag is read from the environment variable of the same name when set, so a run can be
 * tuned without code changes (e.g. `BATCHWISE_GPU_EVAL_SWEEPS=32`).
 */
export interface GpuFlags {
  /** off: never use a GPU; auto: use one if found; required: a missing adapter is an error. */
  readonly BATCHWISE_GPU: 'off' | 'auto' | 'required';
  /**
   * Evaluation sweeps of the current greedy policy after each Bellman sweep (modified policy
   * iteration; 0 = plain RVI). They cost one action per state instead of up to B + 1.
   */
  readonly BATCHWISE_GPU_EVAL_SWEEPS: number;
  /** Cycles (one Bellman sweep + the evaluation sweeps) encoded between two reads of the bounds buffer. */
  readonly BATCHWISE_GPU_CYCLES_PER_CHECK: number;
  /** Threads per workgroup of the per-state kernels (clamped to the device limit). */
  readonly BATCHWISE_GPU_WORKGROUP_SIZE: number;
  /**
   * f32 relative bound gap at which the GPU stage stops; the f64 polish certifies to the
   * requested tolerance afterwards, so this only needs to give a near-optimal policy.
   */
  readonly BATCHWISE_GPU_F32_TOLERANCE: number;
  /** Checks without a 1 % fall of the bound gap after which the f32 iteration is called stalled. */
  readonly BATCHWISE_GPU_STALL_CHECKS: number;
  /** Checks with an unchanged greedy policy after which the GPU stage hands over to the polish. */
  readonly BATCHWISE_GPU_STABLE_CHECKS: number;
  /**
   * Largest excess row mass (rate × Σ|coefficients| − 1) of a tail row the f32 stage keeps
   * extrapolated; rows past it get their overflow lumped into S (see pack.ts).
   */
  readonly BATCHWISE_GPU_MAX_ROW_EXCESS: number;
  /** Cap on the GPU sweeps (Bellman and evaluation) of one solve. */
  readonly BATCHWISE_GPU_MAX_SWEEPS: number;
  /** Debug: fold dispatches into 2-D past this many workgroups per dimension (0 = the device limit). */
  readonly BATCHWISE_GPU_MAX_WORKGROUPS_PER_DIMENSION: number;
  /** Print the final WGSL of kernels whose shader key contains this text ('' = none, '*' = all). */
  readonly BATCHWISE_GPU_PRINT_SHADER: string;
  /**
   * AUTO picks the GPU when the work of one sweep over the batch (states × actions × pmf
   * width, summed over scenarios) reaches this, per adapter kind. See docs/gpu.md.
   */
  readonly BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE: number;
  readonly BATCHWISE_GPU_AUTO_MIN_WORK_SOFTWARE: number;
}

export const DEFAULT_FLAGS: GpuFlags = {
  BATCHWISE_GPU: 'auto',
  BATCHWISE_GPU_EVAL_SWEEPS: 32,
  BATCHWISE_GPU_CYCLES_PER_CHECK: 2,
  BATCHWISE_GPU_WORKGROUP_SIZE: 64,
  BATCHWISE_GPU_F32_TOLERANCE: 1e-6,
  BATCHWISE_GPU_STALL_CHECKS: 8,
  BATCHWISE_GPU_STABLE_CHECKS: 4,
  BATCHWISE_GPU_MAX_ROW_EXCESS: 1e-3,
  BATCHWISE_GPU_MAX_SWEEPS: 200_000,
  BATCHWISE_GPU_MAX_WORKGROUPS_PER_DIMENSION: 0,
  BATCHWISE_GPU_PRINT_SHADER: '',
  BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE: 5e7,
  BATCHWISE_GPU_AUTO_MIN_WORK_SOFTWARE: Number.POSITIVE_INFINITY,
};

type Env = Readonly<Record<string, string | undefined>>;

/** The flags in force: defaults overridden by the environment. Invalid values are reported by name. */
export function readFlags(env: Env = process.env): GpuFlags {
  const out: Record<string, unknown> = { ...DEFAULT_FLAGS };
  for (const key of Object.keys(DEFAULT_FLAGS) as (keyof GpuFlags)[]) {
    const raw = env[key];
    if (raw === undefined || raw === '') continue;
    const def = DEFAULT_FLAGS[key];
    if (key === 'BATCHWISE_GPU') {
      const v = raw.toLowerCase();
      if (v !== 'off' && v !== 'auto' && v !== 'required') {
        throw new Error(`${key} must be one of off, auto, required (got ${JSON.stringify(raw)})`);
      }
      out[key] = v;
    } else if (typeof def === 'number') {
      const v = raw === 'Infinity' ? Number.POSITIVE_INFINITY : Number(raw);
      const zeroOk = key === 'BATCHWISE_GPU_EVAL_SWEEPS' || key === 'BATCHWISE_GPU_MAX_WORKGROUPS_PER_DIMENSION';
      if (!(v >= 0) || (v === 0 && !zeroOk)) throw new Error(`${key} must be a ${zeroOk ? 'non-negative' : 'positive'} number (got ${JSON.stringify(raw)})`);
      out[key] = v;
    } else {
      out[key] = raw;
    }
  }
  return out as unknown as GpuFlags;
}
