import type { CompiledModel } from '../../model/compile.js';
import { throwIfAborted } from '../../model/errors.js';
import type { GpuContext } from './device.js';
import type { GpuFlags } from './flags.js';
import { bellmanSweepKernel, boundsReduceKernel, normalizeKernel } from './kernels.js';
import { packBatch, splitForLimits, type PackedBatch, type WarmValues } from './pack.js';
import { StopTracker, type GpuStop } from './stopRule.js';
import type { BoundKernel, GpuRunner } from './runner.js';
import { BufferUsage } from './usage.js';

/** One scenario of a batched f32 RVI run: a compiled model with any number of phases M. */
export interface GpuRviJob {
  readonly model: CompiledModel;
  /** Relative values h̃ and/or a policy (length (S+1)·M, flat x = s·M + j) to start from. */
  readonly warm?: WarmValues;
  /** The solve's requested relative gap; the f32 stage stops at max(this, the f32 floor). */
  readonly tolerance: number;
}

export interface GpuRviResult {
  /** Greedy policy of the last sweep (undefined when the f32 iteration diverged). */
  readonly policy?: Int32Array;
  readonly values?: Float64Array;
  /** Odoni bounds of the last f32 sweep (not a certificate: the f64 polish gives that). */
  readonly lower: number;
  readonly upper: number;
  readonly sweeps: number;
  readonly stop: GpuStop;
}

/** Test and benchmark hooks. */
export interface GpuRunHooks {
  /** Called after each submitted chunk of sweeps (tests destroy the device here). */
  afterSubmit?(info: { device: GPUDevice; sweeps: number; scenarios: number }): void;
}

export interface BatchedRviOptions {
  readonly flags: GpuFlags;
  readonly signal?: AbortSignal;
  readonly hooks?: GpuRunHooks;
}

/**
 * Modified policy iteration in f32 for a whole batch on the GPU: every sweep updates every
 * state (s, j) of every still-active scenario in one dispatch, whatever each scenario's number
 * of phases M (Poisson scenarios are M = 1); values stay on the device; only the small bounds
 * buffer comes back, every BATCHWISE_GPU_CYCLES_PER_CHECK cycles, and a scenario stops
 * updating as soon as its stop rule fires. Batches too big for one binding run in parts.
 */
export async function batchedRvi(ctx: GpuContext, jobs: readonly GpuRviJob[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const out: GpuRviResult[] = new Array<GpuRviResult>(jobs.length);
  for (const group of splitForLimits(jobs.map((j) => j.model), bindingLimit(ctx))) {
    const res = await runGroup(ctx, group.map((i) => jobs[i]), opts);
    group.forEach((i, k) => (out[i] = res[k]));
  }
  return out;
}

/** The most bytes one storage binding may hold on this device. */
export function bindingLimit(ctx: GpuContext): number {
  return Math.min(ctx.device.limits.maxStorageBufferBindingSize, ctx.device.limits.maxBufferSize);
}

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;

/**
 * The pooled storage buffers and bound kernels of one f32 stage run, handed back together by
 * release(): kernels unbound first, then the buffers returned to the pool.
 */
export class StageResources {
  private readonly held: GPUBuffer[] = [];
  private readonly bound: BoundKernel[] = [];

  constructor(private readonly ctx: GpuContext) {}

  /** A pooled storage buffer of `bytes` (default: the data's size) holding `data` at its start. */
  readonly upload = (data: ArrayBufferView | ArrayBuffer, bytes = data.byteLength): GPUBuffer => {
    const { runner, device } = this.ctx;
    const b = runner.pool.acquire(bytes, STORAGE);
    this.held.push(b);
    if (data.byteLength) device.queue.writeBuffer(b, 0, data instanceof ArrayBuffer ? data : data.buffer, 0, data.byteLength);
    return b;
  };

  /** runner.bind, the kernel kept for release(). */
  async bind(...args: Parameters<GpuRunner['bind']>): Promise<BoundKernel> {
    const k = await this.ctx.runner.bind(...args);
    this.bound.push(k);
    return k;
  }

  release(): void {
    for (const b of this.bound) this.ctx.runner.unbind(b);
    for (const b of this.held) this.ctx.runner.pool.release(b);
  }
}

async function runGroup(ctx: GpuContext, jobs: readonly GpuRviJob[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const { runner, device } = ctx;
  const { flags } = opts;
  const packed = packBatch(
    jobs.map((j) => j.model),
    jobs.map((j) => j.warm),
    flags.BATCHWISE_GPU_MAX_ROW_EXCESS,
  );
  const n = jobs.length;
  const total = packed.totalStates;
  const res = new StageResources(ctx);
  const upload = res.upload;
  try {
    const buffers = {
      scenarios: upload(packed.scenarios.buffer),
      state_scenario: upload(packed.stateScenario),
      actions: upload(packed.actions.buffer),
      coef: upload(packed.coef),
      h: upload(packed.h),
      gap: upload(new ArrayBuffer(0), 4 * total),
      policy: upload(packed.policy),
      changes: upload(new Uint32Array(n)),
      bounds: upload(new ArrayBuffer(0), 16 * n),
    };
    const { wg, reduceWg } = workgroupSizes(device.limits, flags);
    const sweep = await res.bind(bellmanSweepKernel(wg), buffers, { total_states: total, greedy: 1 }, { threads: total });
    const evaluate = await res.bind(bellmanSweepKernel(wg), buffers, { total_states: total, greedy: 0 }, { threads: total });
    const norm = await res.bind(normalizeKernel(wg), buffers, { total_states: total }, { threads: total });
    const reduce = await res.bind(boundsReduceKernel(reduceWg), buffers, { num_scenarios: n }, { workgroups: n });

    const trackers = jobs.map((j) => new StopTracker(flags, j.tolerance));
    const maxSweeps = flags.BATCHWISE_GPU_MAX_SWEEPS;
    const m = flags.BATCHWISE_GPU_EVAL_SWEEPS;
    let sweeps = 0;
    while (trackers.some((t) => !t.done)) {
      throwIfAborted(opts.signal);
      const cycles = Math.max(1, Math.min(flags.BATCHWISE_GPU_CYCLES_PER_CHECK, Math.floor((maxSweeps - sweeps) / (m + 1))));
      const enc = device.createCommandEncoder({ label: 'batchwise-rvi' });
      runner.encodePass(enc, schedule(cycles, m, sweep, evaluate, norm, reduce), 'rvi-sweeps');
      const read = runner.encodeRead(enc, buffers.bounds, 16 * n);
      const chunk = cycles * (m + 1);
      const [data] = await runner.submit(enc, `bellman_sweep ×${chunk} (sweeps ${sweeps + 1}..${sweeps + chunk}, ${n} scenarios)`, [read]);
      sweeps += chunk;
      opts.hooks?.afterSubmit?.({ device, sweeps, scenarios: n });
      const f = new Float32Array(data);
      const u = new Uint32Array(data);
      trackers.forEach((t, j) => {
        if (t.done) return;
        t.check(f[4 * j], f[4 * j + 1], u[4 * j + 2], sweeps, sweeps >= maxSweeps);
        if (t.done) {
          packed.scenarios.set(j, 'live', 0);
          device.queue.writeBuffer(buffers.scenarios, packed.scenarios.fieldByteOffset(j, 'live'), new Uint32Array([0]));
        }
      });
    }
    return await readResults(ctx, packed, buffers.h, buffers.policy, trackers);
  } finally {
    res.release();
  }
}

/**
 * The per-state kernels' workgroup size: the flag, clamped to the device's limits; the
 * reduction's: the largest power of two within that and within its workgroup memory (two f32
 * per thread).
 */
function workgroupSizes(lim: GPUSupportedLimits, flags: GpuFlags): { wg: number; reduceWg: number } {
  const wg = Math.max(1, Math.min(flags.BATCHWISE_GPU_WORKGROUP_SIZE, lim.maxComputeInvocationsPerWorkgroup, lim.maxComputeWorkgroupSizeX));
  const reduceWg = 2 ** Math.floor(Math.log2(Math.min(wg, lim.maxComputeWorkgroupStorageSize / 8)));
  return { wg, reduceWg };
}

/**
 * The dispatches between two checks: `cycles` × (m × (evaluation sweep, normalise), Bellman
 * sweep, normalise), with the reduction right after the last Bellman sweep, since only a
 * Bellman step's gap gives Odoni bounds. Evaluation comes first so that the first cycle
 * evaluates the starting policy (serve min(s, B), or the warm start) rather than improving on
 * h = 0, whose greedy policy (wait everywhere) is a poor place to start from.
 */
export function schedule(cycles: number, m: number, sweep: BoundKernel, evaluate: BoundKernel, norm: BoundKernel, reduce: BoundKernel): BoundKernel[] {
  const seq: BoundKernel[] = [];
  for (let c = 0; c < cycles; c++) {
    for (let i = 0; i < m; i++) seq.push(evaluate, norm);
    seq.push(sweep);
    if (c === cycles - 1) seq.push(reduce);
    seq.push(norm);
  }
  return seq;
}

async function readResults(
  ctx: GpuContext,
  packed: PackedBatch,
  h: GPUBuffer,
  policy: GPUBuffer,
  trackers: readonly StopTracker[],
): Promise<GpuRviResult[]> {
  const { runner, device } = ctx;
  const bytes = 4 * packed.totalStates;
  const enc = device.createCommandEncoder({ label: 'batchwise-rvi-readback' });
  const reads = [runner.encodeRead(enc, h, bytes), runner.encodeRead(enc, policy, bytes)];
  const [hData, pData] = await runner.submit(enc, 'read values and policy', reads);
  const hv = new Float32Array(hData);
  const pv = new Uint32Array(pData);
  return trackers.map((t, j) => {
    const off = packed.stateOffset[j];
    const n = packed.states[j];
    const base = { lower: t.lower, upper: t.upper, sweeps: t.sweeps, stop: t.stop };
    if (t.stop === 'diverged') return base;
    const values = Float64Array.from(hv.subarray(off, off + n));
    const pol = Int32Array.from(pv.subarray(off, off + n));
    return { ...base, values, policy: pol };
  });
}
