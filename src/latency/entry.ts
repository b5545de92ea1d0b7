import type { CompiledModel } from '../model/compile.js';
import { isDeterministicLaw } from '../model/tilt.js';
import { actionAt, type Policy } from '../policy/policy.js';

/**
 * What a request arriving at a random moment finds (docs/model.md §9), from the stationary law ν of
 * the embedded chain over decision epochs. By PASTA a Poisson arrival sees the time-stationary
 * state, so each epoch counts by ν·(its sojourn) / Σν·y:
 *   - an epoch s that waits: the server is idle with s waiting for 1/λ; the arrival is the next
 *     epoch, at level s + 1 with k = s requests ahead. Weight ν(s)/(λ·Σν·y).
 *   - an epoch s' that serves b0: the arrival comes at elapsed service x (density P(T > x)), having
 *     seen i1 arrivals since the start; weight ν(s')/Σν·y times the kernel of residual.ts, which
 *     integrates over x and carries E[T] = Σν·l(b0)/Σν·y of time in all.
 * Atoms: with deterministic service, an arrival at an idle server whose arrival makes the policy
 * serve a batch that includes it has R = l(b) exactly.
 */
export interface EntryLaw {
  readonly levels: number;
  /** Per level s: weight of "idle with s waiting". */
  readonly idle: Float64Array;
  /** Per epoch level s' that serves: weight ν(s')/Σν·y (the kernel adds the time). */
  readonly busy: Float64Array;
  readonly atoms: { readonly at: number; readonly mass: number }[];
}

export function entryLaw(model: CompiledModel, policy: Policy, nu: Float64Array, levels: number): EntryLaw {
  const lambda = model.rates[0];
  const l = model.params.meanService;
  let Y = 0;
  for (let s = 0; s < levels; s++) {
    const a = actionAt(policy, s);
    Y += nu[s] * (a === 0 ? 1 / lambda : l[a]);
  }
  const idle = new Float64Array(levels);
  const busy = new Float64Array(levels);
  const atomMass = new Map<number, number>();
  const det = isDeterministicLaw(model.params.distribution, model.params.cv);
  for (let s = 0; s < levels; s++) {
    const a = actionAt(policy, s);
    if (a === 0) {
      idle[s] = nu[s] / (lambda * Y);
      const next = actionAt(policy, s + 1);
      if (det && next >= s + 1) atomMass.set(next, (atomMass.get(next) ?? 0) + idle[s]);
    } else busy[s] = nu[s] / Y;
  }
  const atoms = [...atomMass].map(([b, mass]) => ({ at: l[b], mass })).sort((x, y) => x.at - y.at);
  return { levels, idle, busy, atoms };
}
