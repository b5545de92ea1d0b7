import type { Scenario } from '../../src/model/scenario.js';

/** The V100/GoogLeNet fit of docs/model.md §6 (Inoue, arXiv 1912.06322) with the illustrative power model. */
export const SPEC_FIT = { perItem: 0.0001438, base: 0.0018874 } as const;

export function specScenario(arrivalRate: number, powerWeight: number, extra: Partial<Scenario> = {}): Scenario {
  return {
    arrivalRate,
    maxBatchSize: 32,
    serviceTime: { linear: { ...SPEC_FIT }, distribution: 'DETERMINISTIC' },
    power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
    objective: { latencyWeight: 1, powerWeight },
    ...extra,
  };
}

/** Capacity B / l(B) of the spec fit. */
export function specCapacity(B: number): number {
  return B / (SPEC_FIT.perItem * B + SPEC_FIT.base);
}
