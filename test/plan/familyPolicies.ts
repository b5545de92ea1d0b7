import { responseTimeLaw } from '../../src/latency/distribution.js';
import { quantile } from '../../src/latency/percentiles.js';
import { latencyModel } from '../../src/latency/summary.js';
import type { ValidatedScenario } from '../../src/model/scenario.js';
import { computeFrontier } from '../../src/plan/frontier.js';
import { evaluatePolicy, type DetailedEvaluation } from '../../src/policy/evaluate.js';
import { trimmedPolicy, type Policy } from '../../src/policy/policy.js';

/**
 * A percentile target's family written out for the tests (docs/model.md §9.3): the frontier's
 * vertices up to E[R] = reach, trimmed as the planner trims them, and every stable "wait below M,
 * serve min(s, c)" with 1 ≤ M ≤ c ≤ B. Duplicates are kept (a reference needs none removed).
 */
export async function familyPolicies(sc: ValidatedScenario, reach: number): Promise<Policy[]> {
  const p = sc.params;
  const policies: Policy[] = (await computeFrontier(sc, { reach: { latency: reach } })).vertices.map((v) => trimmedPolicy(v.policy));
  for (let c = 1; c <= p.maxBatchSize; c++) {
    if (!(p.arrivalRate * p.meanService[c] < c)) continue;
    for (let M = 1; M <= c; M++) policies.push({ actions: new Int32Array(M), tailBatch: c });
  }
  return policies;
}

export interface FamilyMemberP99 {
  readonly policy: Policy;
  readonly power: number;
  /** The p99 of its law at the tight defaults; undefined where `skip` says the law is out of reach. */
  readonly p99?: number;
}

/** Every member of familyPolicies with its mean power and tight-default p99 (none where `skip` returns true). */
export async function familyP99s(sc: ValidatedScenario, reach: number, skip: (policy: Policy, ev: DetailedEvaluation) => boolean = () => false): Promise<FamilyMemberP99[]> {
  const p = sc.params;
  const model = latencyModel(p);
  return (await familyPolicies(sc, reach)).map((policy) => {
    const ev = evaluatePolicy(p, policy);
    if (skip(policy, ev)) return { policy, power: ev.meanPower };
    return { policy, power: ev.meanPower, p99: quantile(responseTimeLaw(model, policy, ev), 0.99, 0).t };
  });
}
