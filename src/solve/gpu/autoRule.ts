import type { CompiledModel } from '../../model/compile.js';
import type { GpuFlags } from './flags.js';

/** 'hardware': a real GPU through the core feature level; 'software': Mesa llvmpipe and the like. */
export type AdapterKind = 'hardware' | 'software';

/** Size of one model as the solver interface reports it. */
export interface ModelSize {
  readonly states: number;
  readonly batch: number;
  /** Band width of the transition matrix (B + largest upward jump): bounds the pmf terms per action. */
  readonly pmfWidth: number;
}

/**
 * Size of one model in the rule's terms: (S+1)·M states, each trying up to B serve actions
 * whose sums run over (upReach + B)·M flat entries. No WebGPU import here, so
 * src/solve/backends.ts can apply the rule before loading the binding.
 */
export function modelSize(m: Pick<CompiledModel, 'S' | 'M' | 'B' | 'upReach'>): ModelSize {
  return { states: (m.S + 1) * m.M, batch: m.B, pmfWidth: (m.upReach + m.B) * m.M };
}

/**
 * Work of one Bellman sweep over a batch, in multiply-adds (an upper bound): every state
 * tries up to B serve actions, each a sum over at most pmfWidth terms.
 */
export function sweepWork(models: readonly ModelSize[]): number {
  let w = 0;
  for (const m of models) w += m.states * m.batch * m.pmfWidth;
  return w;
}

/**
 * The AUTO rule: use the GPU when the sweep work of the batch reaches the adapter kind's
 * threshold. Measured crossovers are in docs/gpu.md; on llvmpipe the GPU never paid off
 * (threshold ∞), so AUTO means CPU there.
 */
export function gpuPaysOff(work: number, kind: AdapterKind, flags: GpuFlags): boolean {
  return work >= threshold(kind, flags);
}

/** Whether any adapter kind could pay off at this work: if not, AUTO need not even open a device. */
export function gpuMightPayOff(work: number, flags: GpuFlags): boolean {
  return work >= Math.min(threshold('hardware', flags), threshold('software', flags));
}

function threshold(kind: AdapterKind, flags: GpuFlags): number {
  return kind === 'hardware' ? flags.BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE : flags.BATCHWISE_GPU_AUTO_MIN_WORK_SOFTWARE;
}
