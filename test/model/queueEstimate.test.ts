import { describe, expect, it } from 'vitest';
import { admissibleScale, estimateQueue, tailDecay } from '../../src/model/queueEstimate.js';
import { validateScenario } from '../../src/model/validate.js';
import { SPEC_FIT, specCapacity, specScenario } from '../helpers/scenarios.js';

const params = (load: number, B: number, serviceTime: { distribution: string; cv?: number }) =>
  validateScenario(specScenario(load * specCapacity(B), 1e-4, { maxBatchSize: B, serviceTime: { linear: { ...SPEC_FIT }, ...serviceTime } as never })).params;

describe('the no-solve queue estimate (model/queueEstimate.ts)', () => {
  it("θ is the Cramér root: Poisson counts over the batch's service time, E[exp(θK)] = exp(θB), written out here", () => {
    const B = 32;
    const l = SPEC_FIT.perItem * B + SPEC_FIT.base;
    for (const load of [0.5, 0.9, 0.99]) {
      const lambda = load * specCapacity(B);
      const m = lambda * l;
      const cases: [{ distribution: string; cv?: number }, (t: number) => number][] = [
        [{ distribution: 'DETERMINISTIC' }, (t) => m * (Math.exp(t) - 1)],
        [{ distribution: 'EXPONENTIAL' }, (t) => -Math.log(1 - m * (Math.exp(t) - 1))],
        [{ distribution: 'GAMMA', cv: 1.5 }, (t) => -Math.log(1 - m * 2.25 * (Math.exp(t) - 1)) / 2.25],
      ];
      for (const [law, logMgf] of cases) {
        const theta = tailDecay(params(load, B, law));
        expect(theta).toBeGreaterThan(0);
        // At the root the two sides agree; a little inside, the walk still drifts down.
        expect(Math.abs(logMgf(theta) - theta * B) / (theta * B)).toBeLessThan(1e-9);
        expect(logMgf(0.99 * theta)).toBeLessThan(0.99 * theta * B);
        // Near capacity the diffusion's 2(B − m)/v is the same decay to first order.
        if (load === 0.99) {
          const cv2 = law.cv !== undefined ? law.cv ** 2 : law.distribution === 'EXPONENTIAL' ? 1 : 0;
          expect(theta / ((2 * (B - m)) / (m + m * m * cv2))).toBeCloseTo(1, 1);
        }
      }
    }
  });

  it('the largest admissible scale fits the bound and a slightly larger one does not; an observation above the estimate lowers it', () => {
    const p = params(0.97, 64, { distribution: 'GAMMA', cv: 1.5 });
    const need = (e: ReturnType<typeof estimateQueue>) => Math.max(e.entries, e.extensionEntries);
    const s = admissibleScale(p, need, 4e7)!;
    expect(s).toBeGreaterThan(0.3);
    expect(s).toBeLessThan(1);
    expect(need(estimateQueue(p, s))).toBeLessThanOrEqual(4e7);
    expect(need(estimateQueue(p, s * 1.01))).toBeGreaterThan(4e7);
    expect(admissibleScale(p, need, 4e7, 10 * need(estimateQueue(p)))!).toBeLessThan(s);
    // An observation below the estimate does not raise it.
    expect(admissibleScale(p, need, 4e7, 1)).toBe(s);
  });
});
