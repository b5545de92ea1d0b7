import type { ClassesModel } from '../../model/classes/compile.js';
import type { GpuContext } from './device.js';
import { fromReal, realWords, toReal, type RealKind } from './df64.js';
import { readFlags } from './flags.js';
import { axisSumsFit } from './jointAxis.js';
import { classesAxisKernel, classesPadKernel, classesSweepKernel } from './jointKernels.js';
import { JOINT_AXES, packJointBatch } from './jointPack.js';
import { boundsReduceKernel } from './kernels.js';
import type { BoundKernel } from './runner.js';
import { bindingLimit, StageResources, workgroupSizes } from './stageLoop.js';

/** One Bellman step of a joint model taken on the device. */
export interface GpuJointStep {
  /** gap(n) = min_a (c̃(n, a) + (τ/y_a)·(E_a H − h(n))), per state, in f64 (hi + lo for df64). */
  readonly gap: Float64Array;
  readonly policy: Int32Array;
  /** The Odoni bounds min and max of gap, reduced on the device. */
  readonly lower: number;
  readonly upper: number;
}

/**
 * One Bellman step of the model itself (the quadratic extrapolation past the tops, as the CPU's
 * certifying step, src/model/classes/bellman.ts) at given f64 values h on the device, in f32 or
 * df64 (`real`: the joint kernels compiled over another arithmetic type, shaders/lib): the pad,
 * the per-axis sums where they fit, the greedy sweep and the bounds reduction. `repeats` > 1
 * encodes the pad, sums and sweep that many times in the one submit (the same step again; for
 * timing, bench/classesGpu.bench.ts). The measured option of docs/gpu.md ("df64"): no solve
 * calls it.
 */
export async function jointStepOnGpu(ctx: GpuContext, model: ClassesModel, h: Float64Array, real: RealKind, repeats = 1): Promise<GpuJointStep> {
  if (h.length !== model.states) throw new RangeError(`h has ${h.length} values; the model has ${model.states} states`);
  const words = realWords(real);
  const axis = axisSumsFit(model, bindingLimit(ctx) / words);
  const packed = packJointBatch([model], [], [], [axis]);
  const res = new StageResources(ctx);
  const upload = res.upload;
  const { wg, reduceWg } = workgroupSizes(ctx.device.limits, readFlags());
  // Two Real per thread of workgroup memory: 16 bytes in df64.
  const rwg = Math.min(reduceWg, 2 ** Math.floor(Math.log2(ctx.device.limits.maxComputeWorkgroupStorageSize / (8 * words))));
  const boundsBytes = 8 + 8 * words;
  try {
    const buffers = {
      scenarios: upload(packed.scenarios.buffer),
      joint: upload(packed.joint.buffer),
      tables: upload(packed.tables),
      coef: upload(toReal(packed.coef, real)),
      h: upload(toReal(h, real)),
      hpad: upload(new ArrayBuffer(0), 4 * words * Math.max(1, packed.hpadValues)),
      gap: upload(new ArrayBuffer(0), 4 * words * model.states),
      policy: upload(packed.policy),
      changes: upload(new Uint32Array(1)),
      bounds: upload(new ArrayBuffer(0), boundsBytes),
    };
    const pads = { total_pad: packed.totalPad, num_scenarios: 1 };
    const step: BoundKernel[] = [await res.bind(classesPadKernel(wg, real), buffers, { ...pads, extrapolate: 1 }, { threads: packed.totalPad })];
    for (let x = (axis ? Math.min(model.C, JOINT_AXES) : 1) - 1; x >= 1; x--) {
      step.push(await res.bind(classesAxisKernel(wg, real), buffers, { ...pads, axis: x }, { threads: packed.totalPad }));
    }
    const sweep = { total_states: model.states, num_scenarios: 1, greedy: 1, residual: 0, axis_sums: axis && model.C > 1 ? 1 : 0 };
    step.push(await res.bind(classesSweepKernel(wg, real), buffers, sweep, { threads: model.states }));
    const reduce = await res.bind(boundsReduceKernel(rwg, real), buffers, { num_scenarios: 1 }, { workgroups: 1 });
    const { runner, device } = ctx;
    const enc = device.createCommandEncoder({ label: `batchwise-joint-step-${real}` });
    runner.encodePass(enc, [...Array.from({ length: repeats }, () => step).flat(), reduce], `joint step ${real}`);
    const reads = [runner.encodeRead(enc, buffers.gap, 4 * words * model.states), runner.encodeRead(enc, buffers.policy, 4 * model.states), runner.encodeRead(enc, buffers.bounds, boundsBytes)];
    const [g, p, b] = await runner.submit(enc, `joint Bellman step in ${real} ×${repeats}`, reads);
    const bounds = fromReal(new Float32Array(b, 0, 2 * words), real);
    return { gap: fromReal(new Float32Array(g), real), policy: Int32Array.from(new Uint32Array(p)), lower: bounds[0], upper: bounds[1] };
  } finally {
    res.release();
  }
}
