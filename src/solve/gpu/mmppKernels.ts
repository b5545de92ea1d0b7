import type { KernelDescriptor } from './kernel.js';
import type { StructDecl } from './structs.js';

/**
 * The Bellman-sweep kernel of the MMPP (s, j) model of docs/model.md §7 (docs/mmpp.md, "Compiled model
 * layout"). One model per dispatch, one thread per flat state x = s·M + j. The normalisation
 * and the bounds reduction are the Poisson kernels (normalize.wgsl, bounds_reduce.wgsl), run on
 * the flat state vector as one "scenario" whose states are 0..(S+1)·M − 1, so the reference
 * state is x = 0, i.e. (0, 0), as in the CPU RVI.
 */

/** One record per b = 1..B (index b − 1). */
export const MMPP_ACTION_INFO: StructDecl = {
  name: 'MmppActionInfo',
  fields: [
    { name: 'rate', type: 'f32' }, // τ / l(b)
    { name: 'pmf_offset', type: 'i32' }, // smallest k of the counting matrices kept
    { name: 'pmf_start', type: 'u32' }, // where b's [j][i][j'] block starts in `coef`
    { name: 'pmf_length', type: 'i32' }, // number of k kept
    { name: 'tail_first', type: 'i32' }, // first s whose transition passes S
    { name: 'tail_start', type: 'u32' }, // where the (s = tail_first, j = 0, j' = 0) triple starts in `coef`
    { name: 'unstable_first', type: 'i32' }, // from this s on the f32 stage leaves serve-b out (mmppPack.ts)
    { name: 'pad', type: 'u32' },
  ],
};

export function mmppBellmanSweepKernel(workgroupSize: number): KernelDescriptor {
  return {
    name: 'mmpp_bellman_sweep',
    shaderKey: `mmpp_bellman_sweep:wg${workgroupSize}`,
    workgroupSize,
    structs: [MMPP_ACTION_INFO],
    bindings: [
      { name: 'actions', access: 'read', type: 'array<MmppActionInfo>' },
      { name: 'coef', access: 'read', type: 'array<f32>' },
      { name: 'h', access: 'read', type: 'array<f32>' },
      { name: 'gap', access: 'read_write', type: 'array<f32>' },
      { name: 'policy', access: 'read_write', type: 'array<u32>' },
      { name: 'changes', access: 'read_write', type: 'array<atomic<u32>>' },
    ],
    uniforms: [
      { name: 'total_states', type: 'u32' }, // (S+1)·M
      { name: 'greedy', type: 'u32' }, // 1: Bellman step; 0: evaluation sweep of `policy`
      { name: 'last', type: 'u32' }, // S
      { name: 'phases', type: 'u32' }, // M
      { name: 'max_batch', type: 'u32' }, // B
      { name: 'all_unstable_from', type: 'u32' }, // from this s on only serve-B is left
      { name: 'kappa_base', type: 'u32' }, // kappa[b·M + j] at coef[kappa_base + b·M + j]
      { name: 'rates_base', type: 'u32' }, // λ_j at coef[rates_base + j]
      { name: 'generator_base', type: 'u32' }, // Q_jj' at coef[generator_base + j·M + j']
      { name: 'tau', type: 'f32' },
      { name: 'cost_slope', type: 'f32' },
      { name: 'wait_cost', type: 'f32' }, // waitKappa = w_pow·P0
    ],
  };
}
