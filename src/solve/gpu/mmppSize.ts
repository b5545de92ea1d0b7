import type { CompiledMmppModel } from '../../model/mmpp/compile.js';
import type { ModelSize } from './autoRule.js';

/**
 * Size of one MMPP model in the AUTO rule's terms (autoRule.ts): (S+1)·M states, each trying
 * up to B serve actions whose sums run over (upReach + B)·M flat entries — the Poisson
 * model's measure with every level counted M times and every pmf entry M times. No WebGPU
 * import here, so src/solve/mmppBackends.ts can apply the rule before loading the binding.
 */
export function mmppModelSize(m: Pick<CompiledMmppModel, 'S' | 'M' | 'B' | 'upReach'>): ModelSize {
  return { states: (m.S + 1) * m.M, batch: m.B, pmfWidth: (m.upReach + m.B) * m.M };
}
