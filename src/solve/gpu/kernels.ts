import { REAL_ZERO, type RealKind } from './df64.js';
import type { KernelDescriptor } from './kernel.js';
import { ACTION_INFO, BOUNDS_OUT, SCENARIO_INFO } from './structs.js';

/**
 * The three kernels of batched relative value iteration. Every constructor argument that
 * changes the compiled code is in the shader key; everything else is a uniform or a buffer.
 */

/**
 * One Bellman step for every state of every scenario: gap = T h − h and the greedy action
 * (uniform greedy = 1), or one evaluation step of the stored policy (greedy = 0).
 */
export function bellmanSweepKernel(workgroupSize: number): KernelDescriptor {
  return {
    name: 'bellman_sweep',
    shaderKey: `bellman_sweep:wg${workgroupSize}`,
    workgroupSize,
    structs: [SCENARIO_INFO, ACTION_INFO],
    bindings: [
      { name: 'scenarios', access: 'read', type: 'array<ScenarioInfo>' },
      { name: 'state_scenario', access: 'read', type: 'array<u32>' },
      { name: 'actions', access: 'read', type: 'array<ActionInfo>' },
      { name: 'coef', access: 'read', type: 'array<f32>' },
      { name: 'h', access: 'read', type: 'array<f32>' },
      { name: 'gap', access: 'read_write', type: 'array<f32>' },
      { name: 'policy', access: 'read_write', type: 'array<u32>' },
      { name: 'changes', access: 'read_write', type: 'array<atomic<u32>>' },
    ],
    uniforms: [
      { name: 'total_states', type: 'u32' },
      { name: 'greedy', type: 'u32' },
    ],
  };
}

/** h ← h + gap − gap(0) per scenario (the RVI normalisation at reference state 0). */
export function normalizeKernel(workgroupSize: number): KernelDescriptor {
  return {
    name: 'normalize',
    shaderKey: `normalize:wg${workgroupSize}`,
    workgroupSize,
    structs: [SCENARIO_INFO],
    bindings: [
      { name: 'scenarios', access: 'read', type: 'array<ScenarioInfo>' },
      { name: 'state_scenario', access: 'read', type: 'array<u32>' },
      { name: 'gap', access: 'read', type: 'array<f32>' },
      { name: 'h', access: 'read_write', type: 'array<f32>' },
    ],
    uniforms: [{ name: 'total_states', type: 'u32' }],
  };
}

/**
 * One workgroup per scenario: min and max of its gap (Odoni bounds) and its action-change count,
 * in the arithmetic type `real` (f32 for the stage; df64 for jointStep.ts, a 24-byte BoundsOut).
 */
export function boundsReduceKernel(workgroupSize: number, real: RealKind = 'f32'): KernelDescriptor {
  if ((workgroupSize & (workgroupSize - 1)) !== 0) throw new Error(`bounds_reduce needs a power-of-two workgroup size (got ${workgroupSize})`);
  return {
    name: 'bounds_reduce',
    shaderKey: `bounds_reduce:wg${workgroupSize}:${real}`,
    workgroupSize,
    structs: [SCENARIO_INFO, BOUNDS_OUT],
    bindings: [
      { name: 'scenarios', access: 'read', type: 'array<ScenarioInfo>' },
      { name: 'gap', access: 'read', type: 'array<Real>' },
      { name: 'changes', access: 'read_write', type: 'array<atomic<u32>>' },
      { name: 'bounds', access: 'read_write', type: 'array<BoundsOut>' },
    ],
    uniforms: [{ name: 'num_scenarios', type: 'u32' }, REAL_ZERO],
    includes: [`real_${real}`],
  };
}
