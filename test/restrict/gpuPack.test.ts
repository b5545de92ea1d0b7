import { describe, expect, it } from 'vitest';
import { compileModel } from '../../src/model/compile.js';
import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { packBatch, stageUsable } from '../../src/solve/gpu/pack.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * The GPU packer reads a restricted model (docs/model.md §11.1) as it is compiled: padded sizes
 * through the per-b data, an ONLY_ALLOWED action set through unstable_first, which the
 * shader's usability rule (stageUsable) then never lets the f32 stage serve. Host side only.
 */
const POWERS_OF_TWO = [1, 2, 4, 8, 16, 32];
const compiled = (s: Scenario, S: number) => compileModel(validateScenario(s).params, S);

describe('packing restricted models for the f32 stage', () => {
  it('ONLY_ALLOWED: the shader rule serves exactly the allowed sizes, and the start policy uses only them', () => {
    const m = compiled({ ...specScenario(4000, 1e-3), restrictions: { allowedBatchSizes: POWERS_OF_TWO, batchSizeRule: 'ONLY_ALLOWED' } }, 80);
    const p = packBatch([m], [], Infinity);
    const B = m.B;
    const unstable = Int32Array.from({ length: B + 1 }, (_, b) => (b === 0 ? 0 : p.actions.get(b - 1, 'unstable_first')));
    const from = p.scenarios.get(0, 'all_unstable_from');
    for (let s = 0; s <= m.S; s++) {
      const usable: number[] = [];
      for (let b = 1; b <= Math.min(s, B); b++) if (stageUsable(unstable, from, B, s, b)) usable.push(b);
      expect(usable).toEqual(POWERS_OF_TWO.filter((a) => a <= s));
      const start = p.policy[s];
      expect(start === 0 || POWERS_OF_TWO.includes(start)).toBe(true);
      // The largest allowed size that fits, or wait below the smallest.
      expect(start).toBe(s === 0 ? 0 : Math.max(...POWERS_OF_TWO.filter((a) => a <= s)));
    }
    // A warm policy with a size the model lacks is not used as the start.
    const warm = Int32Array.from({ length: m.S + 1 }, (_, s) => Math.min(s, B));
    expect(packBatch([m], [{ policy: warm }], Infinity).policy[3]).toBe(2);
  });

  it('PAD_TO_ALLOWED: each b carries the arrival counts of the size it is padded to', () => {
    const u = compiled(specScenario(4000, 1e-3), 80);
    const m = compiled({ ...specScenario(4000, 1e-3), restrictions: { allowedBatchSizes: POWERS_OF_TWO } }, 80);
    const pu = packBatch([u], [], Infinity);
    const pm = packBatch([m], [], Infinity);
    const padded = (b: number): number => POWERS_OF_TWO.find((a) => a >= b)!;
    for (let b = 1; b <= 32; b++) {
      const c = padded(b);
      const a = (p: typeof pm, k: number, f: string): number => p.actions.get(k - 1, f);
      expect(a(pm, b, 'pmf_offset')).toBe(a(pu, c, 'pmf_offset'));
      expect(a(pm, b, 'pmf_length')).toBe(a(pu, c, 'pmf_length'));
      const L = a(pm, b, 'pmf_length');
      const mine = pm.coef.subarray(a(pm, b, 'pmf_start'), a(pm, b, 'pmf_start') + L);
      const theirs = pu.coef.subarray(a(pu, c, 'pmf_start'), a(pu, c, 'pmf_start') + L);
      expect(Array.from(mine)).toEqual(Array.from(theirs));
      // Same τ here (size 1 is allowed), so the same rate and cost of the padded size.
      expect(a(pm, b, 'rate')).toBe(a(pu, c, 'rate'));
      const kb = (p: typeof pm): number => p.scenarios.get(0, 'kappa_base');
      expect(pm.coef[kb(pm) + b]).toBe(pu.coef[kb(pu) + c]);
      // Every b is an action under padding.
      expect(a(pm, b, 'unstable_first')).toBeGreaterThan(0);
    }
  });
});
