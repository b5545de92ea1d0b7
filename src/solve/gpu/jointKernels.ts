import type { KernelDescriptor } from './kernel.js';
import { JOINT_INFO, SCENARIO_INFO } from './structs.js';

/**
 * The joint multi-class model's two kernels (docs/model.md §10); its relative values are
 * normalised and its bounds reduced by the kernels every model kind shares (kernels.ts).
 */

/** Fills each scenario's padded box H from h: the overflow past a top held at the top (lumped), or (extrapolate = 1) the model's quadratic extrapolation. */
export function classesPadKernel(workgroupSize: number): KernelDescriptor {
  return {
    name: 'classes_pad',
    shaderKey: `classes_pad:wg${workgroupSize}`,
    workgroupSize,
    structs: [SCENARIO_INFO, JOINT_INFO],
    bindings: [
      { name: 'scenarios', access: 'read', type: 'array<ScenarioInfo>' },
      { name: 'joint', access: 'read', type: 'array<JointInfo>' },
      { name: 'h', access: 'read', type: 'array<f32>' },
      { name: 'hpad', access: 'read_write', type: 'array<f32>' },
    ],
    uniforms: [
      { name: 'total_pad', type: 'u32' },
      { name: 'num_scenarios', type: 'u32' },
      { name: 'extrapolate', type: 'u32' },
    ],
    includes: ['joint_scenario'],
  };
}

/**
 * One Bellman step of the joint model for every state of every scenario (greedy = 1), or one
 * evaluation step of the stored policy (greedy = 0), with the model's costs or (residual = 1)
 * per-state costs from `coef` (a refinement round, jointRefine.ts).
 */
export function classesSweepKernel(workgroupSize: number): KernelDescriptor {
  return {
    name: 'classes_sweep',
    shaderKey: `classes_sweep:wg${workgroupSize}`,
    workgroupSize,
    structs: [SCENARIO_INFO, JOINT_INFO],
    bindings: [
      { name: 'scenarios', access: 'read', type: 'array<ScenarioInfo>' },
      { name: 'joint', access: 'read', type: 'array<JointInfo>' },
      { name: 'tables', access: 'read', type: 'array<i32>' },
      { name: 'coef', access: 'read', type: 'array<f32>' },
      { name: 'hpad', access: 'read', type: 'array<f32>' },
      { name: 'gap', access: 'read_write', type: 'array<f32>' },
      { name: 'policy', access: 'read_write', type: 'array<u32>' },
      { name: 'changes', access: 'read_write', type: 'array<atomic<u32>>' },
    ],
    uniforms: [
      { name: 'total_states', type: 'u32' },
      { name: 'num_scenarios', type: 'u32' },
      { name: 'greedy', type: 'u32' },
      { name: 'residual', type: 'u32' },
    ],
    includes: ['joint_scenario'],
  };
}
