import { LimitError } from '../model/errors.js';
import type { Backend, ModelParams, ValidatedScenario } from '../model/scenario.js';
import { isExponentialLaw } from '../latency/distribution.js';
import { actionAt, broadcastPolicy, phasesOf, trimmedPolicy, type Policy } from '../policy/policy.js';
import { computeFrontier, DEFAULT_FRONTIER_RESOLUTION } from './frontier.js';
import { formatDuration } from './units.js';

/**
 * The family a percentile target is searched in (docs/model.md §9.3): a percentile is not an
 * additive cost, so no Lagrange weight reaches its optimum over all policies, and the plan is
 * optimal only within a stated, enumerable family:
 *   (a) the deterministic vertices of the mean latency–power frontier (computeFrontier at its
 *       default resolution, extended at least to E[R] = the target; per-phase tables under MMPP),
 *   (b) every stable control limit with a batch cap: wait below M, serve min(s, c) from M on (in
 *       every phase), for 1 ≤ M ≤ c ≤ B with λ̄·l(c) < c (long queues cleared c at a time), and
 *   (c) under MMPP arrivals only, per-phase control limits around the best member of (a) ∪ (b)
 *       (`perPhaseVariants`): its batch cap c*, the phases split into calm and busy ones at one
 *       of the distinct arrival rates, each group its own limit in 1..c*.
 * Caps below M are left out on purpose: with c < M every batch has exactly c requests, so the
 * power equals that of M = c (static:c) while every request waits for more arrivals.
 */
export interface FamilyMember {
  readonly policy: Policy;
  readonly origin: 'frontier' | 'control-limit' | 'per-phase-limits';
  /** Smallest queue length served (in any phase). */
  readonly controlLimit: number;
  /** Largest batch served from long queues (the policy's tailBatch). */
  readonly batchCap: number;
  /** What the policy does, in words. */
  readonly name: string;
}

export interface PercentileFamily {
  /** (a) ∪ (b). */
  readonly members: FamilyMember[];
  /** (a) ∪ (b) in words, as results state it. */
  readonly name: string;
  readonly frontierVertices: number;
  readonly controlLimits: number;
  /**
   * (c) for the batch cap of the best member of (a) ∪ (b) (`meets`: it meets the target; else it
   * has the least percentile), without members already in the family (call it once), and the
   * words that extend `name` with it: none for Poisson arrivals.
   */
  readonly variants: (best: Pick<FamilyMember, 'batchCap' | 'name'>, meets: boolean) => { readonly members: FamilyMember[]; readonly name: string };
}

export interface FamilyOptions {
  readonly signal?: AbortSignal;
  readonly backend?: Backend;
  readonly onProgress?: (step: string) => void;
}

/** Wait below M, serve min(s, c) from M on. */
export function cappedControlLimit(M: number, c: number): Policy {
  return { actions: new Int32Array(M), tailBatch: c };
}

/** True when long queues are cleared faster than they fill: λ̄·l(c) < c (arrivalRate is λ̄ under MMPP). */
export function stableCap(p: ModelParams, c: number): boolean {
  return p.arrivalRate * p.meanService[c] < c;
}

/** Every stable (M, c) with 1 ≤ M ≤ c ≤ B, c increasing, then M. */
export function cappedControlLimits(p: ModelParams): FamilyMember[] {
  const out: FamilyMember[] = [];
  for (let c = 1; c <= p.maxBatchSize; c++) {
    if (!stableCap(p, c)) continue;
    for (let M = 1; M <= c; M++) {
      out.push({ policy: cappedControlLimit(M, c), origin: 'control-limit', controlLimit: M, batchCap: c, name: `wait below ${M}, serve min(s, ${c}) from ${M} on` });
    }
  }
  return out;
}

/** In phase j wait below limits[j], serve min(s, c) from limits[j] on: a table over (queue, phase), s-major. */
export function perPhaseControlLimit(limits: readonly number[], c: number): Policy {
  const K = limits.length;
  const levels = Math.max(...limits);
  const actions = new Int32Array(levels * K);
  for (let s = 0; s < levels; s++) for (let j = 0; j < K; j++) actions[s * K + j] = s < limits[j] ? 0 : Math.min(s, c);
  return { phases: K, actions, tailBatch: c };
}

/**
 * Family (c) for batch cap c: with r_1 < … < r_D the distinct phase rates, for each split
 * d = 1..D−1 the calm phases (λ_j ≤ r_d) wait below M_calm and the busy ones (λ_j > r_d) below
 * M_busy, every pair 1 ≤ M_calm, M_busy ≤ c with M_calm ≠ M_busy (equal limits are (b)), serving
 * min(s, c) from the phase's limit on: (D − 1)·c·(c − 1) ≤ (M − 1)·B·(B − 1) policies, every
 * per-phase control limit with cap c when the MMPP has two phases. None for Poisson arrivals.
 */
export function perPhaseVariants(p: ModelParams, c: number): FamilyMember[] {
  const rates = Array.from(p.arrivalProcess?.rates ?? [p.arrivalRate]);
  const distinct = [...new Set(rates)].sort((x, y) => x - y);
  const out: FamilyMember[] = [];
  for (let d = 0; d + 1 < distinct.length; d++) {
    const busy = rates.map((r) => r > distinct[d]);
    const names = (b: boolean): string => {
      const js = rates.flatMap((_, j) => (busy[j] === b ? [j] : []));
      return `${js.length === 1 ? 'phase' : 'phases'} ${js.join(', ')}`;
    };
    for (let calm = 1; calm <= c; calm++) {
      for (let hot = 1; hot <= c; hot++) {
        if (calm === hot) continue;
        const limits = busy.map((b) => (b ? hot : calm));
        out.push({
          policy: perPhaseControlLimit(limits, c),
          origin: 'per-phase-limits',
          controlLimit: Math.min(calm, hot),
          batchCap: c,
          name: `wait below ${calm} in ${names(false)} and below ${hot} in ${names(true)}, serve min(s, ${c}) from there on`,
        });
      }
    }
  }
  return out;
}

/** Smallest queue length at which some phase serves. */
export function smallestServed(policy: Policy): number {
  const K = phasesOf(policy);
  let M = 0;
  const waits = (s: number): boolean => Array.from({ length: K }, (_, j) => actionAt(policy, s, j)).every((a) => a === 0);
  while (waits(M)) M++;
  return M;
}

/**
 * Two policies that act alike at every (queue, phase) get one key: the table cut where every
 * phase follows its tail rule (trimmedPolicy, the same cut for both), plus that rule. A frontier vertex that is a
 * pure control limit then meets its (b) twin, and the pair costs one law instead of two. A
 * one-phase policy acting under `phases` phases is keyed as its broadcast.
 */
export function policyKey(policy: Policy, phases = phasesOf(policy)): string {
  const whole = trimmedPolicy(broadcastPolicy(policy, phases));
  return `${whole.actions.join(',')}|${whole.tailBatch}`;
}

/**
 * The exact law a percentile target needs exists for Poisson arrivals with every service law,
 * and for MMPP arrivals with exponential service only (docs/model.md §9): the rest is refused here,
 * naming the service law, before any frontier is solved.
 */
export function checkPercentileLaw(p: ModelParams): void {
  if (p.arrivalProcess && !isExponentialLaw(p)) {
    const law = p.distribution === 'GAMMA' ? `GAMMA with cv ${p.cv}` : p.distribution;
    throw new LimitError(
      'serviceTime.distribution',
      `percentile targets under MMPP arrivals (arrivalProcess) need the exact response-time law, implemented there for exponential service only (EXPONENTIAL, or GAMMA with cv = 1; got ${law})`,
    );
  }
}

/** Family (a) ∪ (b), without duplicates (frontier vertices first), and (c) to come for the cap of its best member. */
export async function percentileFamily(sc: ValidatedScenario, target: number, opts: FamilyOptions = {}): Promise<PercentileFamily> {
  const p = sc.params;
  const K = p.arrivalProcess?.phases ?? 1;
  const frontier = await computeFrontier(sc, { reach: { latency: target }, signal: opts.signal, backend: opts.backend, onProgress: opts.onProgress });
  const seen = new Set<string>();
  const fresh = (m: FamilyMember): boolean => {
    const key = policyKey(m.policy, K);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  const members: FamilyMember[] = [];
  frontier.vertices.forEach((v, i) => {
    // Trimmed: a solver's table runs to its S, and the law's work grows with the levels evaluated.
    const m: FamilyMember = { policy: trimmedPolicy(v.policy), origin: 'frontier', controlLimit: smallestServed(v.policy), batchCap: v.policy.tailBatch, name: `frontier vertex ${i + 1} of ${frontier.vertices.length}` };
    if (fresh(m)) members.push(m);
  });
  const before = members.length;
  for (const m of cappedControlLimits(p)) if (fresh(m)) members.push(m);
  const name =
    `the ${frontier.vertices.length} mean latency–power frontier vertices up to E[R] ${formatDuration(frontier.maxLatency)} ` +
    `(resolution ${DEFAULT_FRONTIER_RESOLUTION}) and every stable control limit M with batch cap c${K > 1 ? ' (the same in every phase)' : ''}, 1 ≤ M ≤ c ≤ ${p.maxBatchSize}`;
  const variants = (best: Pick<FamilyMember, 'batchCap' | 'name'>, meets: boolean): { members: FamilyMember[]; name: string } => {
    const cap = best.batchCap;
    const more = perPhaseVariants(p, cap).filter(fresh);
    if (K === 1) return { members: more, name: '' };
    const which = meets ? 'the least-objective one meeting the target' : 'the one with the least percentile';
    return {
      members: more,
      name: `, and the ${more.length} per-phase control limits with the batch cap ${cap} of the best of those (${which}: ${best.name}), the phases split into calm and busy at each distinct arrival rate, each group its own limit in 1..${cap}`,
    };
  };
  return { members, name, frontierVertices: before, controlLimits: members.length - before, variants };
}
