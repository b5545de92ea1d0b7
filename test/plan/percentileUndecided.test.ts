import { describe, expect, it } from 'vitest';
import { lawCostReason, latencyModel } from '../../src/latency/summary.js';
import { formatPercentilePlan } from '../../src/cli/commands/plan.percentile.js';
import { LimitError } from '../../src/model/errors.js';
import { validateScenario } from '../../src/model/validate.js';
import type { ValidatedScenario } from '../../src/model/scenario.js';
import { computeFrontier } from '../../src/plan/frontier.js';
import { planPercentileTarget } from '../../src/plan/percentileTarget.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { actionAt, levelsOf, trimmedPolicy, type Policy } from '../../src/policy/policy.js';
import { familyP99s, type FamilyMemberP99 } from './familyPolicies.js';
import { SPEC_FIT, specScenario } from '../helpers/scenarios.js';

/**
 * A percentile plan whose family holds members with a law out of reach (here the transform
 * route's cost guard for gamma service, MAX_PASSAGE_WORK): they are passed over and listed as
 * undecided, the plan goes on, and its answer is the least-power member meeting the target among
 * the rest — checked against the family enumerated here with each member's tight-default law.
 * Before, the first such member aborted the whole plan with a LimitError.
 */
function gammaScenario(lambda: number): ValidatedScenario {
  // B = 4, cv 0.7: at λ = 400 /s (load 25 %) the high-power caps c = 1, 2 have queues too deep for the transform route.
  return validateScenario(specScenario(lambda, 1e-4, { maxBatchSize: 4, serviceTime: { linear: { ...SPEC_FIT }, distribution: 'GAMMA', cv: 0.7 } }));
}

/** Members with their tight p99, or none where the law is past the planner's guard. */
function enumerate(sc: ValidatedScenario, reach: number): Promise<FamilyMemberP99[]> {
  const model = latencyModel(sc.params);
  return familyP99s(sc, reach, (policy, ev) => lawCostReason(model, policy, ev) !== undefined);
}

describe('plan against a p99 target with members whose law is out of reach', () => {
  it('passes over them, lists them as undecided, and answers among the rest', async () => {
    const sc = gammaScenario(400);
    const T = 9.9e-3;
    const r = await planPercentileTarget(sc, { level: 'p99', seconds: T });
    const family = await enumerate(sc, T);
    const same = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-12 * b;
    const lower = family.filter((m) => m.power < r.policy.meanPower * (1 - 1e-12));
    // Every lower-power member in reach misses the target; the out-of-reach ones are the undecided.
    for (const m of lower) if (m.p99 !== undefined) expect(m.p99).toBeGreaterThan(T);
    const outOfReach = lower.filter((m) => m.p99 === undefined).map((m) => m.power);
    const distinct = outOfReach.filter((x, i) => outOfReach.findIndex((y) => same(x, y)) === i);
    expect(distinct.length).toBeGreaterThan(0);
    expect(r.undecided.map((u) => u.meanPower).sort((a, b) => a - b)).toEqual(distinct.sort((a, b) => a - b).map((x) => expect.closeTo(x, 12)));
    for (const u of r.undecided) expect(u.reason).toMatch(/transform route would take too long/);
    // The answer meets the target, and is the least-power member in reach that does.
    const meeting = family.filter((m) => m.p99 !== undefined && m.p99 <= T);
    expect(meeting.length).toBeGreaterThan(0);
    expect(r.policy.percentile).toBeLessThanOrEqual(T);
    expect(r.policy.meanPower).toBeCloseTo(Math.min(...meeting.map((m) => m.power)), 10);
    // The summary says so, naming each (three at most).
    const lines = formatPercentilePlan(r, sc.params.maxBatchSize);
    expect(lines).toContain(`  Undecided (law out of reach, passed over; the answer is optimal among the other members): ${r.undecided.length}`);
    for (const u of r.undecided.slice(0, 3)) expect(lines.some((l) => l.startsWith(`    ${u.name} (`) && l.endsWith(u.reason))).toBe(true);
  });

  it('refuses on the target field, naming the bound, when no member is in reach', async () => {
    const sc = gammaScenario(600);
    const e = await planPercentileTarget(sc, { level: 'p99', seconds: 0.02 }, { targetField: 'p99Target' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LimitError);
    expect((e as LimitError).field).toBe('p99Target');
    expect((e as LimitError).reason).toMatch(/no member of the family .* has a response-time law within reach.*transform route/);
  });
});

describe('trimmedPolicy', () => {
  it('cuts a solver table where it follows its tail rule, acting alike everywhere and evaluating alike', async () => {
    const sc = validateScenario(specScenario(4000, 1e-3));
    const v = (await computeFrontier(sc, { reach: { latency: 0.01 } })).vertices;
    let cut = 0;
    for (const { policy } of v) {
      const t = trimmedPolicy(policy);
      if (levelsOf(t) < levelsOf(policy)) cut++;
      for (let s = 0; s < 2 * levelsOf(policy); s++) expect(actionAt(t, s)).toBe(actionAt(policy, s));
      const a = evaluatePolicy(sc.params, policy);
      const b = evaluatePolicy(sc.params, t);
      expect(Math.abs(a.meanResponseTime - b.meanResponseTime)).toBeLessThanOrEqual(1e-12 * a.meanResponseTime);
      expect(Math.abs(a.meanPower - b.meanPower)).toBeLessThanOrEqual(1e-12 * a.meanPower);
    }
    expect(cut).toBeGreaterThan(0);
  });

  it('keeps a per-phase table whose phases differ and at least one level', () => {
    const p: Policy = { phases: 2, actions: Int32Array.from([0, 0, 0, 1, 2, 2, 3, 3]), tailBatch: 4 };
    expect(Array.from(trimmedPolicy(p).actions)).toEqual([0, 0, 0, 1]);
    expect(levelsOf(trimmedPolicy({ actions: Int32Array.from([0, 1, 2]), tailBatch: 4 }))).toBe(1);
  });
});
