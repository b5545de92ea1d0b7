import { throwIfAborted } from '../../model/errors.js';
import type { GpuContext } from './device.js';
import type { GpuFlags } from './flags.js';
import { boundsReduceKernel, normalizeKernel } from './kernels.js';
import { mmppBellmanSweepKernel } from './mmppKernels.js';
import { mmppLargestBinding, packMmpp } from './mmppPack.js';
import { GpuError } from './runner.js';
import { schedule, StageResources, type GpuRunHooks, type GpuRviJob, type GpuRviResult } from './rvi.js';
import { StopTracker } from './stopRule.js';
import { SCENARIO_INFO, StructArray } from './structs.js';


export interface MmppRviOptions {
  readonly flags: GpuFlags;
  readonly signal?: AbortSignal;
  readonly hooks?: GpuRunHooks;
}

/**
 * f32 modified policy iteration of one compiled MMPP model on the GPU, the schedule and stop
 * rule of the Poisson stage (rvi.ts, whose schedule() it uses): per submit `cycles × (m ×
 * (evaluate, normalise), sweep, normalise)` with the bounds reduction after the last Bellman
 * sweep, and only the 16-byte bounds record read back between submits.
 * mmpp_bellman_sweep.wgsl does the sweeps; normalize.wgsl and bounds_reduce.wgsl are the
 * Poisson kernels, run on the flat state vector as one scenario of (S+1)·M states (reference
 * state x = 0). Values and policy stay on the device until the stage ends.
 */
export async function mmppGpuRvi(ctx: GpuContext, job: GpuRviJob, opts: MmppRviOptions): Promise<GpuRviResult> {
  const { runner, device } = ctx;
  const { flags } = opts;
  const { model } = job;
  const lim = device.limits;
  const maxBinding = Math.min(lim.maxStorageBufferBindingSize, lim.maxBufferSize);
  const need = mmppLargestBinding(model);
  if (need > maxBinding) {
    throw new GpuError(`an MMPP model with S = ${model.S}, M = ${model.M}, B = ${model.B} needs a ${need}-byte binding, over the device limit ${maxBinding}`);
  }
  // mmpp_bellman_sweep binds 6 storage buffers, bounds_reduce 4, normalize 4.
  if (lim.maxStorageBuffersPerShaderStage < 6) {
    throw new GpuError(`mmpp_bellman_sweep needs 6 storage buffers per stage; the device allows ${lim.maxStorageBuffersPerShaderStage}`);
  }
  const packed = packMmpp(model, job.warm, flags.BATCHWISE_GPU_MAX_ROW_EXCESS);
  const n = packed.totalStates;
  const info = new StructArray(SCENARIO_INFO, 1);
  info.set(0, 'state_offset', 0);
  info.set(0, 'last', n - 1);
  info.set(0, 'max_batch', model.B);
  info.set(0, 'live', 1);
  const res = new StageResources(ctx);
  const upload = res.upload;
  try {
    const buffers = {
      scenarios: upload(info.buffer),
      state_scenario: upload(new ArrayBuffer(0), 4 * n), // all scenario 0 (zero-filled)
      actions: upload(packed.actions.buffer),
      coef: upload(packed.coef),
      h: upload(packed.h),
      gap: upload(new ArrayBuffer(0), 4 * n),
      policy: upload(packed.policy),
      changes: upload(new Uint32Array(1)),
      bounds: upload(new ArrayBuffer(0), 16),
    };
    // Pooled buffers may hold old data: state_scenario must read 0 everywhere.
    device.queue.writeBuffer(buffers.state_scenario, 0, new Uint32Array(n));
    const maxWg = Math.min(lim.maxComputeInvocationsPerWorkgroup, lim.maxComputeWorkgroupSizeX);
    const wg = Math.min(flags.BATCHWISE_GPU_WORKGROUP_SIZE, maxWg);
    const common = {
      total_states: n,
      last: model.S,
      phases: model.M,
      max_batch: model.B,
      all_unstable_from: packed.allUnstableFrom,
      kappa_base: packed.kappaBase,
      rates_base: packed.ratesBase,
      generator_base: packed.generatorBase,
      tau: model.tau,
      cost_slope: model.costSlope,
      wait_cost: model.kappa[0],
    };
    const sweep = await res.bind(mmppBellmanSweepKernel(wg), buffers, { ...common, greedy: 1 }, { threads: n });
    const evaluate = await res.bind(mmppBellmanSweepKernel(wg), buffers, { ...common, greedy: 0 }, { threads: n });
    const norm = await res.bind(normalizeKernel(wg), buffers, { total_states: n }, { threads: n });
    const reduce = await res.bind(boundsReduceKernel(powerOfTwoAtMost(wg)), buffers, { num_scenarios: 1 }, { workgroups: 1 });

    const tracker = new StopTracker(flags, job.tolerance);
    const maxSweeps = flags.BATCHWISE_GPU_MAX_SWEEPS;
    const m = flags.BATCHWISE_GPU_EVAL_SWEEPS;
    let sweeps = 0;
    while (!tracker.done) {
      throwIfAborted(opts.signal);
      const cycles = Math.max(1, Math.min(flags.BATCHWISE_GPU_CYCLES_PER_CHECK, Math.floor((maxSweeps - sweeps) / (m + 1))));
      const enc = device.createCommandEncoder({ label: 'batchwise-mmpp-rvi' });
      runner.encodePass(enc, schedule(cycles, m, sweep, evaluate, norm, reduce), 'mmpp-rvi-sweeps');
      const read = runner.encodeRead(enc, buffers.bounds, 16);
      const chunk = cycles * (m + 1);
      const [data] = await runner.submit(enc, `mmpp_bellman_sweep ×${chunk} (sweeps ${sweeps + 1}..${sweeps + chunk}, ${n} states)`, [read]);
      sweeps += chunk;
      opts.hooks?.afterSubmit?.({ device, sweeps, scenarios: 1 });
      const f = new Float32Array(data);
      const u = new Uint32Array(data);
      tracker.check(f[0], f[1], u[2], sweeps, sweeps >= maxSweeps);
    }
    const base = { lower: tracker.lower, upper: tracker.upper, sweeps: tracker.sweeps, stop: tracker.stop };
    if (tracker.stop === 'diverged') return base;
    const enc = device.createCommandEncoder({ label: 'batchwise-mmpp-readback' });
    const reads = [runner.encodeRead(enc, buffers.h, 4 * n), runner.encodeRead(enc, buffers.policy, 4 * n)];
    const [hData, pData] = await runner.submit(enc, 'read MMPP values and policy', reads);
    return { ...base, values: Float64Array.from(new Float32Array(hData)), policy: Int32Array.from(new Uint32Array(pData)) };
  } finally {
    res.release();
  }
}

/** bounds_reduce needs a power-of-two workgroup size. */
function powerOfTwoAtMost(n: number): number {
  return 2 ** Math.floor(Math.log2(Math.max(1, n)));
}
