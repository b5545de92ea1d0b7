import { sweepWork as classesSweepWork } from '../../model/classes/bellman.js';
import { AbortError } from '../../model/errors.js';
import { gpuPaysOff, modelSize, sweepWork } from './autoRule.js';
import { largestOf } from './bindingGroups.js';
import type { BatchRunner, BatchRunners } from './collector.js';
import { acquireGpu, type GpuContext } from './device.js';
import type { GpuFlags } from './flags.js';
import { batchedJointRvi, type GpuJointJob } from './jointRvi.js';
import { jointBindingBytes } from './jointPack.js';
import { gpuLogger } from './log.js';
import { largestBinding } from './pack.js';
import { batchedRvi, bindingLimit, type GpuRunHooks, type GpuRviJob, type GpuRviResult } from './rvi.js';
import { residualFlags } from './stage.js';

/** What a batched solve's rounds run under: its device (if one was had), backend, flags, signal and hooks. */
export interface RoundSettings {
  readonly ctx: GpuContext | undefined;
  readonly backend: 'GPU' | 'AUTO';
  readonly flags: GpuFlags;
  readonly signal: AbortSignal;
  readonly hooks?: GpuRunHooks;
}

/** How one kind's batch runs: its sweep work for the AUTO rule (none: never refused), its binding need, its batched runner. */
interface KindRun<J> {
  readonly work?: (jobs: readonly J[]) => number;
  readonly binding: (job: J) => number;
  readonly run: (gpu: GpuContext, jobs: readonly J[]) => Promise<GpuRviResult[]>;
}

/**
 * The collector's runners for a batched solve: the (queue, phase) model's stage in one batchedRvi
 * call, the joint model's in one batchedJointRvi call and its residual evaluations in another.
 */
export function roundRunners(s: RoundSettings): BatchRunners {
  let ctx = s.ctx;
  // The device may have been lost since the batch began: acquire again (a new one if so).
  const device = async (): Promise<GpuContext | undefined> => {
    const gpu = ctx && !ctx.isLost() ? ctx : await acquireGpu(s.flags).catch(() => undefined);
    if (gpu) ctx = gpu;
    return gpu;
  };
  const opts = { flags: s.flags, signal: s.signal, hooks: s.hooks };
  const evalOpts = { ...opts, flags: residualFlags(s.flags) };
  const jointBinding = (j: GpuJointJob): number => largestOf(jointBindingBytes(j.model));
  return {
    single: kindRunner<GpuRviJob>(s, device, {
      work: (jobs) => sweepWork(jobs.map((j) => modelSize(j.model))),
      binding: (j) => largestBinding(j.model),
      run: (gpu, jobs) => batchedRvi(gpu, jobs, opts),
    }),
    joint: kindRunner<GpuJointJob>(s, device, {
      work: (jobs) => jobs.reduce((w, j) => w + classesSweepWork(j.model), 0),
      binding: jointBinding,
      run: (gpu, jobs) => batchedJointRvi(gpu, jobs, opts),
    }),
    // Sent only by a refinement whose stage ran on the GPU: the AUTO rule has decided already.
    residual: kindRunner<GpuJointJob>(s, device, { binding: jointBinding, run: (gpu, jobs) => batchedJointRvi(gpu, jobs, evalOpts) }),
  };
}

function kindRunner<J>(s: RoundSettings, device: () => Promise<GpuContext | undefined>, kind: KindRun<J>): BatchRunner<J> {
  return async (jobs) => {
    const gpu = await device();
    if (!gpu) return undefined;
    if (s.backend === 'AUTO' && kind.work && !gpuPaysOff(kind.work(jobs), gpu.kind, s.flags)) return undefined;
    // A model too big for the device's bindings (a large MMPP one, say) finishes on the CPU
    // alone rather than taking its round-mates with it.
    const fits = jobs.map((j) => kind.binding(j) <= bindingLimit(gpu));
    if (fits.includes(false)) gpuLogger().warn({ scenarios: fits.filter((f) => !f).length, limit: bindingLimit(gpu) }, 'models over the GPU binding limit; finishing them on the CPU');
    try {
      const results = await kind.run(gpu, jobs.filter((_, i) => fits[i]));
      let k = 0;
      return fits.map((fit) => (fit ? { result: results[k++], adapter: gpu.adapterName } : undefined));
    } catch (e) {
      if (e instanceof AbortError) throw e;
      // Logged once for the whole batch; every scenario of it finishes on the CPU.
      gpuLogger().warn({ err: e, scenarios: jobs.length }, 'GPU batch failed; finishing its scenarios on the CPU');
      return undefined;
    }
  };
}
