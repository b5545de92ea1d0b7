import type { Backend, ModelParams, ValidatedScenario } from '../model/scenario.js';
import { actionAt, levelsOf, type Policy } from '../policy/policy.js';
import { computeFrontier, DEFAULT_FRONTIER_RESOLUTION } from './frontier.js';
import { formatDuration } from './units.js';

/**
 * The family a percentile target is searched in (docs/model.md §9): a percentile is not an
 * additive cost, so no Lagrange weight reaches its optimum over all policies, and the plan is
 * optimal only within a stated, enumerable family:
 *   (a) the deterministic vertices of the mean latency–power frontier (computeFrontier at its
 *       default resolution, extended at least to E[R] = the target), and
 *   (b) every stable control limit with a batch cap: wait below M, serve min(s, c) from M on,
 *       for 1 ≤ M ≤ c ≤ B with λ·l(c) < c (long queues cleared c at a time).
 * Caps below M are left out on purpose: with c < M every batch has exactly c requests, so the
 * power equals that of M = c (static:c) while every request waits for more arrivals.
 */
export interface FamilyMember {
  readonly policy: Policy;
  readonly origin: 'frontier' | 'control-limit';
  /** Smallest queue length served. */
  readonly controlLimit: number;
  /** Largest batch served from long queues (the policy's tailBatch). */
  readonly batchCap: number;
  /** What the policy does, in words. */
  readonly name: string;
}

export interface PercentileFamily {
  readonly members: FamilyMember[];
  /** The family in words, as results state it. */
  readonly name: string;
  readonly frontierVertices: number;
  readonly controlLimits: number;
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

/** True when long queues are cleared faster than they fill: λ·l(c) < c (Poisson arrivals). */
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

/**
 * Two policies that act alike at every queue length get one key: the table cut where it starts
 * to agree with its own tail rule, plus that rule. A frontier vertex that is a pure control limit
 * then meets its (b) twin, and the pair costs one law instead of two.
 */
export function policyKey(policy: Policy): string {
  let n = levelsOf(policy);
  while (n > 1 && policy.actions[n - 1] === Math.min(n - 1, policy.tailBatch)) n--;
  const head: number[] = [];
  for (let s = 0; s < n; s++) head.push(actionAt(policy, s));
  return `${head.join(',')}|${policy.tailBatch}`;
}

/** Family (a) ∪ (b) for a Poisson scenario, without duplicates (frontier vertices first). */
export async function percentileFamily(sc: ValidatedScenario, target: number, opts: FamilyOptions = {}): Promise<PercentileFamily> {
  const p = sc.params;
  const frontier = await computeFrontier(sc, { reach: { latency: target }, signal: opts.signal, backend: opts.backend, onProgress: opts.onProgress });
  const members: FamilyMember[] = [];
  const seen = new Set<string>();
  const add = (m: FamilyMember): void => {
    const key = policyKey(m.policy);
    if (seen.has(key)) return;
    seen.add(key);
    members.push(m);
  };
  frontier.vertices.forEach((v, i) => {
    let M = 0;
    while (actionAt(v.policy, M) === 0) M++;
    add({ policy: v.policy, origin: 'frontier', controlLimit: M, batchCap: v.policy.tailBatch, name: `frontier vertex ${i + 1} of ${frontier.vertices.length}` });
  });
  const before = members.length;
  for (const m of cappedControlLimits(p)) add(m);
  const name =
    `the ${frontier.vertices.length} mean latency–power frontier vertices up to E[R] ${formatDuration(frontier.maxLatency)} ` +
    `(resolution ${DEFAULT_FRONTIER_RESOLUTION}) and every stable control limit M with batch cap c, 1 ≤ M ≤ c ≤ ${p.maxBatchSize}`;
  return { members, name, frontierVertices: before, controlLimits: members.length - before };
}
