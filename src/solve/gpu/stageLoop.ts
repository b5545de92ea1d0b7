import { throwIfAborted } from '../../model/errors.js';
import type { GpuContext } from './device.js';
import type { GpuFlags } from './flags.js';
import { boundsReduceKernel, normalizeKernel } from './kernels.js';
import type { BoundKernel, GpuRunner } from './runner.js';
import { StopTracker, type GpuStop } from './stopRule.js';
import type { StructArray } from './structs.js';
import { BufferUsage } from './usage.js';

/** What the f32 stage gives for one scenario of a batch, whatever the model kind. */
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
 * One batch on the device, as a model kind prepares it: its ScenarioInfo records (the loop reads
 * and writes only state_offset, states and live), the buffers the loop touches, and the bound
 * kernels of one Bellman sweep and of one evaluation sweep (each a sequence: a kind may fill a
 * padded box first), the normalisation and the bounds reduction, shared by every kind.
 */
export interface StageProgram {
  readonly scenarios: StructArray;
  readonly buffers: { readonly scenarios: GPUBuffer; readonly bounds: GPUBuffer; readonly h: GPUBuffer; readonly policy: GPUBuffer };
  readonly improve: readonly BoundKernel[];
  readonly evaluate: readonly BoundKernel[];
  readonly normalize: BoundKernel;
  readonly reduce: BoundKernel;
  readonly stateOffset: readonly number[];
  readonly states: readonly number[];
  readonly totalStates: number;
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

/** What every kind's packer gives besides its own arrays: the shared records and per-state arrays. */
export interface PackedStates {
  readonly scenarios: StructArray;
  readonly stateScenario: Uint32Array;
  /** Initial relative values (warm start or 0), 0 at each scenario's state 0. */
  readonly h: Float32Array;
  /** Initial policy (warm start, or the kind's start: serve as policy iteration starts). */
  readonly policy: Uint32Array;
  /** First global state of each scenario; its states are stateOffset[i]..stateOffset[i] + states[i] − 1. */
  readonly stateOffset: readonly number[];
  readonly states: readonly number[];
  readonly totalStates: number;
}

/** The per-state arrays of a batch of `total` states (at least one element each: WebGPU refuses empty buffers). */
export function stateArrays(total: number): { stateScenario: Uint32Array; h: Float32Array; policy: Uint32Array } {
  const n = Math.max(1, total);
  return { stateScenario: new Uint32Array(n), h: new Float32Array(n), policy: new Uint32Array(n) };
}

/** Warm relative values into the batch's h at a scenario's offset, shifted so that its state 0 is 0 (ignored unless `count` long). */
export function putWarmValues(h: Float32Array, at: number, count: number, w: Float64Array | undefined): void {
  if (w && w.length === count) for (let x = 0; x < count; x++) h[at + x] = w[x] - w[0];
}

/** A kind's sweeps, bound: one Bellman sweep and one evaluation sweep, each a sequence of kernels. */
export interface KindSweeps {
  readonly improve: readonly BoundKernel[];
  readonly evaluate: readonly BoundKernel[];
}

/**
 * Uploads a packed batch (the shared buffers, and the kind's own from `own`), binds the kind's
 * sweeps (`sweeps`, given every buffer and the workgroup size) with the shared normalisation and
 * reduction, runs the stage loop, and releases everything.
 */
export async function runPacked(
  ctx: GpuContext,
  packed: PackedStates,
  own: (upload: StageResources['upload']) => Record<string, GPUBuffer>,
  sweeps: (res: StageResources, buffers: Record<string, GPUBuffer>, wg: number) => Promise<KindSweeps>,
  tolerances: readonly number[],
  opts: BatchedRviOptions,
): Promise<GpuRviResult[]> {
  const n = tolerances.length;
  const total = packed.totalStates;
  const res = new StageResources(ctx);
  const upload = res.upload;
  try {
    const buffers = {
      scenarios: upload(packed.scenarios.buffer),
      state_scenario: upload(packed.stateScenario),
      h: upload(packed.h),
      gap: upload(new ArrayBuffer(0), 4 * total),
      policy: upload(packed.policy),
      changes: upload(new Uint32Array(n)),
      bounds: upload(new ArrayBuffer(0), 16 * n),
      ...own(upload),
    };
    const { wg, reduceWg } = workgroupSizes(ctx.device.limits, opts.flags);
    const kind = await sweeps(res, buffers, wg);
    const normalize = await res.bind(normalizeKernel(wg), buffers, { total_states: total }, { threads: total });
    const reduce = await res.bind(boundsReduceKernel(reduceWg), buffers, { num_scenarios: n }, { workgroups: n });
    const program = { ...kind, scenarios: packed.scenarios, buffers, normalize, reduce, stateOffset: packed.stateOffset, states: packed.states, totalStates: total };
    return await runStage(ctx, program, tolerances, opts);
  } finally {
    res.release();
  }
}

/**
 * Modified policy iteration in f32 for a whole batch: values stay on the device; only the small
 * bounds buffer comes back, every BATCHWISE_GPU_CYCLES_PER_CHECK cycles, and a scenario stops
 * updating (live = 0) as soon as its stop rule fires. The one loop for every model kind.
 */
export async function runStage(ctx: GpuContext, program: StageProgram, tolerances: readonly number[], opts: BatchedRviOptions): Promise<GpuRviResult[]> {
  const { runner, device } = ctx;
  const { flags } = opts;
  const n = tolerances.length;
  const { buffers, scenarios } = program;
  const trackers = tolerances.map((t) => new StopTracker(flags, t));
  const maxSweeps = flags.BATCHWISE_GPU_MAX_SWEEPS;
  const m = flags.BATCHWISE_GPU_EVAL_SWEEPS;
  let sweeps = 0;
  while (trackers.some((t) => !t.done)) {
    throwIfAborted(opts.signal);
    const cycles = Math.max(1, Math.min(flags.BATCHWISE_GPU_CYCLES_PER_CHECK, Math.floor((maxSweeps - sweeps) / (m + 1))));
    const enc = device.createCommandEncoder({ label: 'batchwise-rvi' });
    runner.encodePass(enc, schedule(cycles, m, program), 'rvi-sweeps');
    const read = runner.encodeRead(enc, buffers.bounds, 16 * n);
    const chunk = cycles * (m + 1);
    const [data] = await runner.submit(enc, `bellman sweeps ×${chunk} (sweeps ${sweeps + 1}..${sweeps + chunk}, ${n} scenarios)`, [read]);
    sweeps += chunk;
    opts.hooks?.afterSubmit?.({ device, sweeps, scenarios: n });
    const f = new Float32Array(data);
    const u = new Uint32Array(data);
    trackers.forEach((t, j) => {
      if (t.done) return;
      t.check(f[4 * j], f[4 * j + 1], u[4 * j + 2], sweeps, sweeps >= maxSweeps);
      if (t.done) {
        scenarios.set(j, 'live', 0);
        device.queue.writeBuffer(buffers.scenarios, scenarios.fieldByteOffset(j, 'live'), new Uint32Array([0]));
      }
    });
  }
  return readResults(ctx, program, trackers);
}

/**
 * The dispatches between two checks: `cycles` × (m × (evaluation sweep, normalise), Bellman
 * sweep, normalise), with the reduction right after the last Bellman sweep, since only a
 * Bellman step's gap gives Odoni bounds. Evaluation comes first so that the first cycle
 * evaluates the starting policy (the kind's start, or the warm start) rather than improving on
 * h = 0, whose greedy policy (wait everywhere) is a poor place to start from.
 */
export function schedule(cycles: number, m: number, p: Pick<StageProgram, 'improve' | 'evaluate' | 'normalize' | 'reduce'>): BoundKernel[] {
  const seq: BoundKernel[] = [];
  for (let c = 0; c < cycles; c++) {
    for (let i = 0; i < m; i++) seq.push(...p.evaluate, p.normalize);
    seq.push(...p.improve);
    if (c === cycles - 1) seq.push(p.reduce);
    seq.push(p.normalize);
  }
  return seq;
}

async function readResults(ctx: GpuContext, program: StageProgram, trackers: readonly StopTracker[]): Promise<GpuRviResult[]> {
  const { runner, device } = ctx;
  const bytes = 4 * program.totalStates;
  const enc = device.createCommandEncoder({ label: 'batchwise-rvi-readback' });
  const reads = [runner.encodeRead(enc, program.buffers.h, bytes), runner.encodeRead(enc, program.buffers.policy, bytes)];
  const [hData, pData] = await runner.submit(enc, 'read values and policy', reads);
  const hv = new Float32Array(hData);
  const pv = new Uint32Array(pData);
  return trackers.map((t, j) => {
    const off = program.stateOffset[j];
    const n = program.states[j];
    const base = { lower: t.lower, upper: t.upper, sweeps: t.sweeps, stop: t.stop };
    if (t.stop === 'diverged') return base;
    const values = Float64Array.from(hv.subarray(off, off + n));
    const pol = Int32Array.from(pv.subarray(off, off + n));
    return { ...base, values, policy: pol };
  });
}

/** The most bytes one storage binding may hold on this device. */
export function bindingLimit(ctx: GpuContext): number {
  return Math.min(ctx.device.limits.maxStorageBufferBindingSize, ctx.device.limits.maxBufferSize);
}

/**
 * The per-state kernels' workgroup size: the flag, clamped to the device's limits; the
 * reduction's: the largest power of two within that and within its workgroup memory (two f32
 * per thread).
 */
export function workgroupSizes(lim: GPUSupportedLimits, flags: GpuFlags): { wg: number; reduceWg: number } {
  const wg = Math.max(1, Math.min(flags.BATCHWISE_GPU_WORKGROUP_SIZE, lim.maxComputeInvocationsPerWorkgroup, lim.maxComputeWorkgroupSizeX));
  const reduceWg = 2 ** Math.floor(Math.log2(Math.min(wg, lim.maxComputeWorkgroupStorageSize / 8)));
  return { wg, reduceWg };
}
