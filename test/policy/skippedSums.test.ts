import { describe, expect, it } from 'vitest';
import { buildArrivalTable } from '../../src/model/arrivalTable.js';
import { compileModel, type CompiledModel } from '../../src/model/compile.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { gapBounds, serveStep } from '../../src/policy/greedy.js';
import { evaluateOnModel } from '../../src/policy/modelChain.js';
import { logUniform, pick, rng } from '../helpers/random.js';
import { randomScenario } from '../helpers/randomScenario.js';

/**
 * The Bellman step skips serve sums it can prove are not the minimum (docs/model.md §3.2,
 * "Skipped serve sums"). The claim is exactness: the same gap, policy and wait values to the bit
 * as the step that forms every sum, so the same Odoni bounds. Checked here on a few hundred
 * random models of every family the direct sums serve, at a policy's exact values (what policy
 * iteration hands the step) and at values with kinks and noise (what nothing promises anything about).
 */

/** Half the scenarios bursty: the same mean rate split over two or three phases. */
function varied(r: () => number): Scenario {
  const s = randomScenario(r, { maxB: 40, rhoMax: 0.97 });
  const out: Record<string, unknown> = { ...s };
  if (r() < 0.3) {
    const M = r() < 0.5 ? 2 : 3;
    const a = 0.9 * r();
    const rates = M === 2 ? [s.arrivalRate * (1 - a), s.arrivalRate * (1 + a)] : [s.arrivalRate * (1 - a), s.arrivalRate, s.arrivalRate * (1 + a)];
    const q = s.arrivalRate * logUniform(r, 1e-3, 1);
    // A symmetric two-phase switch or a three-phase cycle: both have the uniform stationary law.
    const generator = M === 2 ? [-q, q, q, -q] : [-q, q, 0, 0, -q, q, q, 0, -q];
    out.arrivalRate = 0;
    out.arrivalProcess = { mmpp: { rates, generator } };
  }
  const B = s.maxBatchSize;
  if (B > 2 && r() < 0.15) {
    const sizes = [B];
    for (let b = 1; b < B; b++) if (r() < 0.4) sizes.push(b);
    out.restrictions = { allowedBatchSizes: sizes, batchSizeRule: 'ONLY_ALLOWED' };
  }
  return out as unknown as Scenario;
}

function model(sc: Scenario, S: number): CompiledModel | undefined {
  try {
    const { params } = validateScenario(sc);
    const m = compileModel(params, S, buildArrivalTable(params));
    // The recurrence of §3.2 takes exponential and integer-shape gamma service; their table is summed here.
    return { ...m, cascade: undefined };
  } catch {
    return undefined; // a scenario past a documented bound (a pmf too long for its S, …)
  }
}

function serveAll(m: CompiledModel): Int32Array {
  const p = new Int32Array((m.S + 1) * m.M);
  for (let s = 1; s <= m.S; s++) p.fill(Math.min(s, m.B), s * m.M, (s + 1) * m.M);
  return p;
}

function sameBits(a: Float64Array, b: Float64Array): number {
  let differ = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) differ++;
  return differ;
}

describe('skipped serve sums', () => {
  it('leave the Bellman step the same to the bit on 300 random models (deterministic, exponential, gamma, MMPP, tables, restrictions)', () => {
    const r = rng(20261203);
    let models = 0;
    let bursty = 0;
    let formed = 0;
    let skipped = 0;
    let skippedAtValues = 0;
    let formedAtValues = 0;
    while (models < 300) {
      const sc = varied(r);
      const m = model(sc, 40 + Math.floor(r() * 400));
      if (!m) continue;
      models++;
      if (m.M > 1) bursty++;
      const n = (m.S + 1) * m.M;
      const policy = serveAll(m);
      let values: Float64Array;
      try {
        values = evaluateOnModel(m, policy).values.map((v) => v / m.tau);
      } catch {
        values = new Float64Array(n).map((_, x) => 0.01 * Math.floor(x / m.M) ** 2);
      }
      const noisy = values.map((v, x) => v + (Math.abs(v) + 1) * 1e-3 * Math.sin(7 * x) - (x > n / 2 ? 0.1 * (x - n / 2) : 0));
      const kind = pick(r, ['keep', 'none'] as const);
      for (const [h, atValues] of [[values, true], [noisy, false]] as const) {
        const keep = kind === 'keep' ? policy : undefined;
        const on = { gap: new Float64Array(n), policy: new Int32Array(n), waits: new Float64Array(n) };
        const off = { gap: new Float64Array(n), policy: new Int32Array(n), waits: new Float64Array(n) };
        const c = serveStep(m, h, on.gap, on.policy, keep, on.waits, undefined, true);
        const all = serveStep(m, h, off.gap, off.policy, keep, off.waits, undefined, false);
        const where = `model ${models} (M = ${m.M}, B = ${m.B}, S = ${m.S}, ${JSON.stringify(sc.serviceTime)})`;
        expect(all.skipped, where).toBe(0);
        expect(c.formed + c.skipped, where).toBe(all.formed);
        expect(sameBits(on.gap, off.gap), where).toBe(0);
        expect(sameBits(on.waits, off.waits), where).toBe(0);
        expect(Array.from(on.policy), where).toEqual(Array.from(off.policy));
        const [a, b] = [gapBounds(on.gap), gapBounds(off.gap)];
        expect(Object.is(a.lower, b.lower) && Object.is(a.upper, b.upper), where).toBe(true);
        formed += c.formed;
        skipped += c.skipped;
        if (atValues) {
          formedAtValues += c.formed;
          skippedAtValues += c.skipped;
        }
      }
    }
    expect(bursty).toBeGreaterThan(40);
    // The comparison means something only if sums were skipped: most of them, at a policy's values.
    expect(skipped).toBeGreaterThan(0);
    expect(skippedAtValues / (skippedAtValues + formedAtValues)).toBeGreaterThan(0.5);
    console.log(`skipped serve sums: ${skippedAtValues} of ${skippedAtValues + formedAtValues} at policy values, ${skipped} of ${skipped + formed} in all`);
  });
});
