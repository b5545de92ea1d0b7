import { actionAt, levelsOf, phasesOf, type Policy } from '../policy/policy.js';

/**
 * The cap on m (requests behind) shared by the exact methods (docs/model.md §9.1): with L the
 * smallest level from which every phase serves min(s, b∞) (b∞ = tailBatch), once m ≥ max(L, b∞) − 1
 * every later epoch serves b∞ (m never falls before the request's batch starts), so the remaining
 * time no longer depends on m.
 */
export function behindCap(policy: Policy): number {
  const M = phasesOf(policy);
  const bInf = policy.tailBatch;
  let L = levelsOf(policy);
  while (L > 0 && pureAt(policy, L - 1, M, bInf)) L--;
  return Math.max(L, bInf) - 1;
}

function pureAt(policy: Policy, s: number, M: number, bInf: number): boolean {
  for (let j = 0; j < M; j++) if (actionAt(policy, s, j) !== Math.min(s, bInf)) return false;
  return true;
}
