import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { responseTimeLaw } from '../../src/latency/distribution.js';
import { responseCdfCeiling } from '../../src/latency/floor.js';
import { quantile } from '../../src/latency/percentiles.js';
import { latencyModel } from '../../src/latency/summary.js';
import { validateScenario } from '../../src/model/validate.js';
import type { ValidatedScenario } from '../../src/model/scenario.js';
import { planPercentileTarget, PercentileInfeasibleError, type PercentilePlanResult } from '../../src/plan/percentileTarget.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import type { Policy } from '../../src/policy/policy.js';
import { runCli } from '../helpers/cli.js';
import { familyP99s, type FamilyMemberP99 } from './familyPolicies.js';
import { specScenario } from '../helpers/scenarios.js';
import { planP99BothWays } from './percentileCli.js';

/**
 * The percentile-target plan against an enumeration of its whole family written here: the
 * frontier's vertices and every stable "wait below M, serve min(s, c)" with 1 ≤ M ≤ c ≤ B, each
 * through evaluatePolicy and its exact law. B = 8 (not the §6 rows' 32) keeps the enumeration to
 * ~30 laws of tens of ms: at B = 32 the family has ~500 members, some near saturation whose laws
 * take seconds. λ = 1500 /s and 2000 /s (4000 /s needs B ≥ 18 to be stable).
 */
/** Members with their tight p99 (every one in reach at B = 8, deterministic service). */
async function enumerate(sc: ValidatedScenario, reach: number): Promise<Array<FamilyMemberP99 & { readonly p99: number }>> {
  return (await familyP99s(sc, reach)).map((m) => ({ ...m, p99: m.p99! }));
}

function scenario(lambda: number): ValidatedScenario {
  return validateScenario(specScenario(lambda, 1e-4, { maxBatchSize: 8 }));
}

/** The returned policy as a Policy: its table and its batch cap. */
function policyOf(r: PercentilePlanResult): Policy {
  return { actions: Int32Array.from(r.policy.policy.actions), tailBatch: r.policy.batchCap };
}

describe('plan against a p99 target: least power within the stated family', () => {
  for (const lambda of [1500, 2000]) {
    it(`λ = ${lambda} /s, B = 8: the answer meets the target and no lower-power member does`, async () => {
      const sc = scenario(lambda);
      // A first pass fixes a target between the family's best p99 and the least-power member's.
      const probe = await enumerate(sc, 0);
      const least = Math.min(...probe.map((m) => m.p99));
      const cheapest = probe.reduce((a, b) => (b.power < a.power ? b : a));
      expect(cheapest.p99).toBeGreaterThan(least * 1.05);
      const T = Math.sqrt(least * cheapest.p99);

      const r = await planPercentileTarget(sc, { level: 'p99', seconds: T });
      const family = await enumerate(sc, T);
      expect(r.family.size).toBeLessThanOrEqual(family.length);
      // The least-power member misses T, so the search passed over at least one before its answer.
      expect(r.examined + r.ruledOut).toBeGreaterThan(1);
      // Its exact p99, recomputed from the policy it names, meets the target.
      const model = latencyModel(sc.params);
      const ev = evaluatePolicy(sc.params, policyOf(r));
      const p99 = quantile(responseTimeLaw(model, policyOf(r), ev), 0.99, 0).t;
      expect(p99).toBeLessThanOrEqual(T);
      // The plan's figure is at the results' settings (or the tight ones): within both stated accuracies (the tight one's under 1e-9).
      expect(Math.abs(p99 - r.policy.percentile)).toBeLessThanOrEqual((r.policy.percentileRelative + 1e-9) * p99);
      expect(Math.abs(ev.meanPower - r.policy.meanPower)).toBeLessThanOrEqual(1e-12 * ev.meanPower);
      // No member with lower power meets it, and the least power among those that do is the answer's.
      for (const m of family) if (m.power < r.policy.meanPower * (1 - 1e-12)) expect(m.p99).toBeGreaterThan(T);
      const meeting = family.filter((m) => m.p99 <= T).map((m) => m.power);
      expect(Math.abs(Math.min(...meeting) - r.policy.meanPower)).toBeLessThanOrEqual(1e-12 * r.policy.meanPower);
      // The bound that skips laws never undercuts an exact CDF.
      for (const m of family) {
        const e = evaluatePolicy(sc.params, m.policy);
        const ceiling = responseCdfCeiling(sc.params, m.policy, e)!;
        const law = responseTimeLaw(model, m.policy, e);
        for (const t of [0.5 * m.p99, m.p99, T]) expect(ceiling(t)).toBeGreaterThanOrEqual(law.cdf(t) - law.cdfError - 1e-12);
      }
    });
  }

  it('an infeasible target names the least achievable p99 over the family', async () => {
    const sc = scenario(1500);
    const family = await enumerate(sc, 0);
    const least = Math.min(...family.map((m) => m.p99));
    const T = 0.9 * least;
    const err = await planPercentileTarget(sc, { level: 'p99', seconds: T }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PercentileInfeasibleError);
    const e = err as PercentileInfeasibleError;
    expect(Math.abs(e.least.percentile - least)).toBeLessThanOrEqual((e.least.percentileRelative + 1e-9) * least);
    expect(e.message).toMatch(/cannot be met within the family .*: the least achievable p99 is \d+\.\d{4} ms/);
  });
});

describe('batchwise plan --p99-target', () => {
  const dir = mkdtempSync(join(tmpdir(), 'batchwise-p99-'));
  const file = join(dir, 'light.json');
  writeFileSync(file, JSON.stringify(specScenario(1500, 1e-4, { maxBatchSize: 8 })));

  it('prints the policy and its exact p99; --json carries the same figures', async () => {
    const { text } = await planP99BothWays(file, '10ms', 10e-3);
    expect(text).toMatch(/Optimal within the \d+ mean latency–power frontier vertices .* not over all policies/);
  });

  it('an unreachable target and a second target are one-line errors with exit code 2', async () => {
    for (const [args, msg] of [
      [['--p99-target', '1ms'], /--p99-target: 1\.0000 ms cannot be met within the family .* the least achievable p99 is/],
      [['--p99-target', '10ms', '--latency-target', '5ms'], /give exactly one of --latency-target, --power-budget, --p95-target/],
      [['--latency-target', '5ms', '--objective', 'cost'], /--objective: applies to percentile targets/],
    ] as const) {
      const r = await runCli('plan', file, ...args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });
});
