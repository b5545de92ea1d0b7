import type { MmppProcess } from './mmpp/process.js';
import { exitRate } from './mmpp/process.js';
import type { ModelParams } from './scenario.js';

/**
 * Mean length of a decision epoch: taking action a in arrival phase j. Waiting lasts until the
 * next event, an arrival or a phase change (rate λ_j + q_j); serving b lasts its mean service
 * time l(b). The one definition: the compiled model, the policy chains and the planning mixes
 * all read it here.
 */
export function epochSojourn(p: ModelParams, proc: MmppProcess, a: number, j: number): number {
  return a === 0 ? 1 / (proc.rates[j] + exitRate(proc, j)) : p.meanService[a];
}
