import { beforeAll, describe, expect, it } from 'vitest';
import { planScenario, type PlanResult } from '../../src/plan/constrained.js';
import { computeFrontier, type Frontier } from '../../src/plan/frontier.js';
import { DEFAULT_RESOLUTION } from '../../src/plan/search.js';
import { actionAt, levelsOf, type Policy } from '../../src/policy/policy.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * Plan and Frontier under restrictions (docs/model.md §11.1), against the unrestricted ones at
 * λ = 1500 (where the frontier is complete): a restriction only removes (ONLY_ALLOWED) or
 * worsens (PAD_TO_ALLOWED) what a policy can do, so nothing restricted beats the unrestricted
 * frontier or plan; under ONLY_ALLOWED every policy returned serves allowed sizes only.
 */
const SIZES = [1, 2, 4, 8, 16, 32];
const B = 32;
const plain = specScenario(1500, 1e-4);
const only = { ...plain, restrictions: { allowedBatchSizes: SIZES, batchSizeRule: 'ONLY_ALLOWED' as const } };
const padded = { ...plain, restrictions: { allowedBatchSizes: SIZES } };
const allowed = new Set(SIZES);

/** Every batch size the policy serves: its table, then min(s, tailBatch) up to where that is constant. */
function served(p: Policy | { actions: readonly number[] }): number[] {
  const policy: Policy = 'tailBatch' in p ? p : { actions: Int32Array.from(p.actions), tailBatch: B };
  const out = new Set<number>();
  for (let s = 0; s <= levelsOf(policy) + B; s++) out.add(actionAt(policy, s));
  out.delete(0);
  return [...out].sort((a, b) => a - b);
}

/** The unrestricted frontier's least power at latency T (its last vertex's beyond it: the power end). */
function powerAt(f: Frontier, T: number): number {
  const v = f.vertices.map((x) => x.figures);
  for (let i = 0; i + 1 < v.length; i++) {
    if (v[i].meanResponseTime <= T && T <= v[i + 1].meanResponseTime) {
      const t = (T - v[i].meanResponseTime) / (v[i + 1].meanResponseTime - v[i].meanResponseTime);
      return v[i].meanPower + t * (v[i + 1].meanPower - v[i].meanPower);
    }
  }
  if (T >= v[v.length - 1].meanResponseTime) return v[v.length - 1].meanPower;
  throw new Error(`${T} s is below the least latency ${v[0].meanResponseTime} s`);
}

describe('restricted frontier and plan at λ = 1500, allowed sizes {1, 2, 4, 8, 16, 32}', () => {
  let unrestricted: Frontier;
  beforeAll(async () => {
    unrestricted = await computeFrontier(plain, { resolution: DEFAULT_RESOLUTION });
    expect(unrestricted.complete).toBe(true);
  });

  for (const [name, scenario] of [['ONLY_ALLOWED', only], ['PAD_TO_ALLOWED', padded]] as const) {
    it(`${name}: every frontier vertex lies on or above the unrestricted frontier`, async () => {
      // Padded, the walk towards the power end stops with a LimitError past about 5.5 ms here (docs/planning.md,
      // known issues): the padded frontier is taken up to 5 ms, the only-allowed one whole.
      const f = await computeFrontier(scenario, name === 'PAD_TO_ALLOWED' ? { maxLatency: 5e-3 } : {});
      if (name === 'ONLY_ALLOWED') expect(f.complete).toBe(true);
      expect(f.vertices.length).toBeGreaterThanOrEqual(2);
      const least = unrestricted.vertices[0].figures.meanResponseTime;
      for (const v of f.vertices) {
        const { meanResponseTime: R, meanPower: P } = v.figures;
        expect(R).toBeGreaterThanOrEqual(least * (1 - 1e-12));
        // The unrestricted frontier is resolved to 1e-8 (relative): a point below it by more would beat every unrestricted policy.
        expect(P).toBeGreaterThanOrEqual(powerAt(unrestricted, R) * (1 - 1e-7));
        if (name === 'ONLY_ALLOWED') expect(served(v.policy).every((b) => allowed.has(b)), `vertex at ${R} s serves ${served(v.policy).join(', ')}`).toBe(true);
      }
      // The restriction costs something at the latency end: the unrestricted least-latency policy serves sizes outside the set.
      expect(served(unrestricted.vertices[0].policy).some((b) => !allowed.has(b))).toBe(true);
      expect(f.vertices[0].figures.meanResponseTime).toBeGreaterThan(least);
    });

    for (const target of [{ kind: 'latency' as const, seconds: 5e-3 }, { kind: 'power' as const, watts: 80 }]) {
      it(`${name}: the ${target.kind} plan is never better than the unrestricted one${name === 'ONLY_ALLOWED' ? ', and its policies serve allowed sizes only' : ''}`, async () => {
        const r: PlanResult = await planScenario(scenario, target);
        const u: PlanResult = await planScenario(plain, target);
        if (target.kind === 'latency') {
          expect(r.optimum.meanResponseTime).toBeLessThanOrEqual(target.seconds * (1 + 1e-12));
          expect(r.optimum.meanPower).toBeGreaterThanOrEqual(u.optimum.meanPower * (1 - 1e-8));
          expect(r.deterministic.meanResponseTime).toBeLessThanOrEqual(target.seconds * (1 + 1e-12));
          expect(r.deterministic.meanPower).toBeGreaterThanOrEqual(u.optimum.meanPower * (1 - 1e-8));
        } else {
          expect(r.optimum.meanPower).toBeLessThanOrEqual(target.watts * (1 + 1e-12));
          expect(r.optimum.meanResponseTime).toBeGreaterThanOrEqual(u.optimum.meanResponseTime * (1 - 1e-8));
          expect(r.deterministic.meanPower).toBeLessThanOrEqual(target.watts * (1 + 1e-12));
          expect(r.deterministic.meanResponseTime).toBeGreaterThanOrEqual(u.optimum.meanResponseTime * (1 - 1e-8));
        }
        // Here the restriction binds: the unrestricted optimum's policies serve sizes outside the set.
        if (target.kind === 'latency') expect(r.optimum.meanPower).toBeGreaterThan(u.optimum.meanPower);
        else expect(r.optimum.meanResponseTime).toBeGreaterThan(u.optimum.meanResponseTime);
        if (name === 'ONLY_ALLOWED') {
          expect(r.status).toBe('binding');
          const policies = [r.deterministic, ...(r.mix ? [r.mix.first, r.mix.second] : []), ...(r.bracket ? [r.bracket.lower, r.bracket.upper] : [])];
          expect(policies.length).toBeGreaterThanOrEqual(1);
          for (const p of policies) expect(served(p.policy).every((b) => allowed.has(b)), `serves ${served(p.policy).join(', ')}`).toBe(true);
          if (r.mix) expect(r.mix.actions.every((a) => a === 0 || allowed.has(a))).toBe(true);
        }
      });
    }
  }
});
