import type { Scenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';

/**
 * A scenario small enough to trace by hand: B = 4, deterministic l(b) = b + 1 s,
 * P(b) = 10·b + 100 W, P0 = 5 W. Its λ only matters for Poisson runs.
 */
export const TINY: Scenario = {
  arrivalRate: 0.5,
  maxBatchSize: 4,
  serviceTime: { linear: { perItem: 1, base: 1 }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 5, busyLinear: { perItem: 10, base: 100 } },
  objective: { latencyWeight: 1, powerWeight: 0.01 },
};

export const tinyParams = () => validateScenario(TINY).params;

/** Arrival times used by the hand-traced cases. */
export const TINY_TRACE = Float64Array.of(0, 0.5, 1, 5, 5.2, 20);
