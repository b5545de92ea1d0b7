import { REAL_ZERO, type RealKind } from './df64.js';
import type { BindingDecl, KernelDescriptor } from './kernel.js';
import { JOINT_INFO, SCENARIO_INFO } from './structs.js';
import type { UniformDecl } from './uniforms.js';

/**
 * The joint multi-class model's three kernels (docs/model.md §10): each sweep fills the padded
 * boxes (classes_pad), forms the per-axis sums of the product kernels for axis 2, then axis 1
 * (classes_axis, only where a batch has them), and takes every state's step (classes_sweep). Its
 * relative values are normalised and its bounds reduced by the kernels every model kind shares
 * (kernels.ts). Each is compiled for an arithmetic type `Real` (shaders/lib/real_f32.wgsl, the f32
 * stage; real_df64.wgsl, double-float, for the measured df64 step of jointStep.ts): h, hpad,
 * coef and gap hold Real values.
 */

/** Fills each scenario's padded box H from h: the overflow past a top held at the top (lumped), or (extrapolate = 1) the model's quadratic extrapolation. */
export function classesPadKernel(workgroupSize: number, real: RealKind = 'f32'): KernelDescriptor {
  return jointKernel('classes_pad', workgroupSize, 'total_pad', [
    { name: 'h', access: 'read', type: 'array<Real>' },
    { name: 'hpad', access: 'read_write', type: 'array<Real>' },
  ], [{ name: 'extrapolate', type: 'u32' }], real);
}

/**
 * The per-axis sums F_x of every product-kernel action with a slot (jointAxis.ts) at every padded
 * position of every scenario, for the one axis `axis` (1 or 2; F_2 must be formed first): the
 * CPU's axisSums (src/model/classes/bellman.ts), as sums of differences. F lies in `hpad` past the
 * boxes, so the sweep reads it through its one `hpad` binding (within 8 storage bindings).
 */
export function classesAxisKernel(workgroupSize: number, real: RealKind = 'f32'): KernelDescriptor {
  return jointKernel('classes_axis', workgroupSize, 'total_pad', [
    { name: 'tables', access: 'read', type: 'array<i32>' },
    { name: 'coef', access: 'read', type: 'array<Real>' },
    { name: 'hpad', access: 'read_write', type: 'array<Real>' },
  ], [{ name: 'axis', type: 'u32' }], real);
}

/**
 * One Bellman step of the joint model for every state of every scenario (greedy = 1), or one
 * evaluation step of the stored policy (greedy = 0), with the model's costs or (residual = 1)
 * per-state costs from `coef` (a refinement round, jointRefine.ts). With axis_sums = 1 a serve of
 * a product-kernel action with a slot sums len_0 terms of the per-axis sums classes_axis formed;
 * with 0, and for every other kernel, it sums the kernel's rows.
 */
export function classesSweepKernel(workgroupSize: number, real: RealKind = 'f32'): KernelDescriptor {
  return jointKernel('classes_sweep', workgroupSize, 'total_states', [
    { name: 'tables', access: 'read', type: 'array<i32>' },
    { name: 'coef', access: 'read', type: 'array<Real>' },
    { name: 'hpad', access: 'read', type: 'array<Real>' },
    { name: 'gap', access: 'read_write', type: 'array<Real>' },
    { name: 'policy', access: 'read_write', type: 'array<u32>' },
    { name: 'changes', access: 'read_write', type: 'array<atomic<u32>>' },
  ], [
    { name: 'greedy', type: 'u32' },
    { name: 'residual', type: 'u32' },
    { name: 'axis_sums', type: 'u32' },
  ], real);
}

/**
 * What every joint kernel shares: one thread per state or padded position (`total`, the uniform
 * counting them), the ScenarioInfo and JointInfo bindings first, the scenario count, and
 * live_joint_scenario (shaders/lib/joint_scenario.wgsl); then the kernel's own bindings and uniforms.
 */
function jointKernel(name: string, workgroupSize: number, total: 'total_pad' | 'total_states', bindings: readonly BindingDecl[], uniforms: readonly UniformDecl[], real: RealKind): KernelDescriptor {
  return {
    name,
    shaderKey: `${name}:wg${workgroupSize}:${real}`,
    workgroupSize,
    structs: [SCENARIO_INFO, JOINT_INFO],
    bindings: [
      { name: 'scenarios', access: 'read', type: 'array<ScenarioInfo>' },
      { name: 'joint', access: 'read', type: 'array<JointInfo>' },
      ...bindings,
    ],
    uniforms: [{ name: total, type: 'u32' }, { name: 'num_scenarios', type: 'u32' }, ...uniforms, REAL_ZERO],
    includes: [`real_${real}`, 'joint_scenario'],
  };
}
