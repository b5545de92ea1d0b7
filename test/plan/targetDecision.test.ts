import { describe, expect, it } from 'vitest';
import { responseTimeLaw } from '../../src/latency/distribution.js';
import { quantile } from '../../src/latency/percentiles.js';
import { latencyModel } from '../../src/latency/summary.js';
import { lawPercentile, percentileAgainst } from '../../src/latency/targetPercentile.js';
import { buildArrivalTable } from '../../src/model/arrivalTable.js';
import type { ValidatedScenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { computeFrontier } from '../../src/plan/frontier.js';
import { cappedControlLimits, policyKey } from '../../src/plan/percentileFamily.js';
import { planPercentileTarget, PercentileInfeasibleError } from '../../src/plan/percentileTarget.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { trimmedPolicy, type Policy } from '../../src/policy/policy.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * The planner computes laws at the results' settings; a target placed on a member's percentile —
 * exactly, or a hair either side — must still be decided as the tight defaults decide it. The
 * reference is the family enumerated here (the frontier's vertices up to the target and every
 * stable capped control limit), each member's p99 from its law at the tight defaults: the answer
 * to T is the least-power member whose tight p99 is ≤ T. The targets sit on a member m* whose p99
 * is below every cheaper member's (so that just below it the answer moves to another member, or
 * there is none), on its tight p99 and on its p99 at the results' settings
 * (which differ by ~1e-9 relative: at least one of the hair's sides is decided differently by the
 * two). Deterministic and exponential service, B = 8, λ = 1500 /s.
 */
interface Member {
  readonly policy: Policy;
  readonly power: number;
  readonly p99: number;
}

function tightFamily(sc: ValidatedScenario): (reach: number) => Promise<Member[]> {
  const p = sc.params;
  const model = latencyModel(p);
  // The planner's own evaluation (with the arrival table), so that the tight p99 here is bit for bit its own.
  const table = buildArrivalTable(p);
  // Laws by the exact table (the same table evaluates to the same bits), computed once over the calls.
  const known = new Map<string, Member>();
  const member = (policy: Policy): Member => {
    const key = `${policy.actions.join(',')}|${policy.tailBatch}`;
    let m = known.get(key);
    if (!m) {
      const ev = evaluatePolicy(p, policy, { table });
      known.set(key, (m = { policy, power: ev.meanPower, p99: quantile(responseTimeLaw(model, policy, ev), 0.99, 0).t }));
    }
    return m;
  };
  return async (reach) => {
    // Trimmed as the planner's family trims them, so that each member's evaluation is bit for bit its own.
    const vertices = (await computeFrontier(sc, { reach: { latency: reach } })).vertices.map((v) => trimmedPolicy(v.policy));
    // Policies acting alike are one member, the first met (vertices first), as in the planner's family.
    const seen = new Set<string>();
    const fresh = (policy: Policy): boolean => !seen.has(policyKey(policy)) && !!seen.add(policyKey(policy));
    return [...vertices, ...cappedControlLimits(p).map((c) => c.policy)].filter(fresh).map(member);
  };
}

/** The least power over the members meeting T at the tight defaults, or undefined when none does. */
function tightAnswer(family: readonly Member[], T: number): number | undefined {
  const meeting = family.filter((m) => m.p99 <= T).map((m) => m.power);
  return meeting.length > 0 ? Math.min(...meeting) : undefined;
}

describe('targets on a member’s percentile are decided as at the tight defaults', () => {
  for (const distribution of ['DETERMINISTIC', 'EXPONENTIAL'] as const) {
    it(`${distribution}: exactly at, and 1e-12 relative either side of, m*'s tight p99 and its p99 at the results' settings`, async () => {
      const base = specScenario(1500, 1e-4, { maxBatchSize: 8 });
      const sc = validateScenario({ ...base, serviceTime: { ...base.serviceTime, distribution } });
      const familyAt = tightFamily(sc);
      // The records in increasing power (a p99 below every cheaper member's): each is the answer to a
      // target at its p99 and not just below it. The second one, where the family has two.
      const records: Member[] = [];
      for (const m of [...(await familyAt(0))].sort((a, b) => a.power - b.power)) if (records.every((r) => m.p99 < r.p99)) records.push(m);
      const star = records[Math.min(1, records.length - 1)];
      const p = sc.params;
      const results = lawPercentile(latencyModel(p), star.policy, evaluatePolicy(p, star.policy, { table: buildArrivalTable(p) }), 0.99, 'results');
      expect(results.settings).toBe('results');
      // The two settings give different p99s here, so a hair's target between them tells them apart.
      expect(results.t).not.toBe(star.p99);
      expect(Math.abs(results.t - star.p99)).toBeLessThanOrEqual(2 * results.relative * star.p99);

      let movedBelow = false;
      for (const at of [star.p99, results.t]) {
        for (const T of [at * (1 - 1e-12), at, at * (1 + 1e-12)]) {
          const want = tightAnswer(await familyAt(T), T);
          const got = await planPercentileTarget(sc, { level: 'p99', seconds: T }).catch((e: unknown) => e);
          if (want === undefined) {
            expect(got).toBeInstanceOf(PercentileInfeasibleError);
            movedBelow = true;
            continue;
          }
          if (got instanceof Error) throw got;
          const r = got as Awaited<ReturnType<typeof planPercentileTarget>>;
          expect(Math.abs(r.policy.meanPower - want)).toBeLessThanOrEqual(1e-12 * want);
          expect(r.policy.percentile).toBeLessThanOrEqual(T);
          if (want > star.power * (1 + 1e-12)) movedBelow = true;
          // m* itself, decided this close to its p99, was decided (and is reported) at the tight defaults.
          if (Math.abs(r.policy.meanPower - star.power) <= 1e-12 * star.power) {
            expect(r.policy.percentile).toBe(star.p99);
            expect(r.policy.percentileRelative).toBeLessThan(results.relative);
          }
        }
      }
      // Just below m*'s tight p99 the answer is another member (or none): the targets do test the decision on m*.
      expect(movedBelow).toBe(true);
    }, 120_000);
  }
});

describe('percentileAgainst (what the fleet’s p99 check uses too)', () => {
  it('keeps the results’ figure where the target is clear of it, and takes the tight one within twice its accuracy', () => {
    const base = specScenario(1500, 1e-4, { maxBatchSize: 8 });
    const p = validateScenario({ ...base, serviceTime: { ...base.serviceTime, distribution: 'EXPONENTIAL' } }).params;
    const policy: Policy = { actions: new Int32Array(4), tailBatch: 8 };
    const model = latencyModel(p);
    const ev = evaluatePolicy(p, policy);
    const tight = quantile(responseTimeLaw(model, policy, ev), 0.99, 0);
    const results = lawPercentile(model, policy, ev, 0.99, 'results');
    expect(results.t).not.toBe(tight.t);
    const d = results.relative * results.t;
    for (const T of [results.t - 1.9 * d, results.t, tight.t, results.t + 1.9 * d]) {
      const q = percentileAgainst(model, policy, ev, 0.99, T);
      expect([q.settings, q.t, q.relative]).toEqual(['tight', tight.t, tight.relative]);
    }
    for (const T of [results.t - 2.1 * d, results.t + 2.1 * d, 0.5 * results.t]) {
      const q = percentileAgainst(model, policy, ev, 0.99, T);
      expect([q.settings, q.t]).toEqual(['results', results.t]);
    }
  });
});
