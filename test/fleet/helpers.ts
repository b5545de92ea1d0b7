import type { FleetScenario } from '../../src/fleet/scenario.js';
import type { Scenario } from '../../src/model/scenario.js';

/** The spec's reference accelerator (Inoue's V100 / GoogLeNet fit, docs/model.md §6) as a single-server scenario. */
export const V100: Scenario = {
  arrivalRate: 2000,
  maxBatchSize: 32,
  serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'EXPONENTIAL' },
  power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
  objective: { latencyWeight: 1, powerWeight: 0.0001 },
};

/** That scenario as a fleet of `count` accelerators with one class at `rate`. */
export function singleClassFleet(s: Scenario, count: number, rate: number, policy: string): FleetScenario {
  return {
    classes: [{ name: 'only', arrivalRate: rate }],
    accelerators: [{ name: 'gpu', count, maxBatchSize: s.maxBatchSize, serviceTime: { only: s.serviceTime }, power: s.power, policy }],
    objective: { latencyWeight: s.objective.latencyWeight, powerWeight: s.objective.powerWeight },
  };
}

/** A two-class mix: a fast vision model beside a slow language model, on `count` identical accelerators. */
export function twoClassFleet(count: number, scale: number, batching: 'PER_CLASS' | 'MIXED' = 'PER_CLASS'): FleetScenario {
  return {
    classes: [
      { name: 'vision', arrivalRate: 1500 * scale, latencyTarget: 0.01 },
      { name: 'language', arrivalRate: 60 * scale, latencyTarget: 0.25 },
    ],
    accelerators: [
      {
        name: 'gpu',
        count,
        maxBatchSize: 16,
        policy: 'greedy',
        serviceTime: {
          vision: { linear: { perItem: 0.00015, base: 0.0019 }, distribution: 'DETERMINISTIC' },
          language: { linear: { perItem: 0.004, base: 0.03 }, distribution: 'GAMMA', cv: 0.5 },
        },
        power: { idleWatts: 60, busyLinear: { perItem: 4, base: 200 } },
      },
    ],
    batching,
    objective: { latencyWeight: 1, powerWeight: 0 },
  };
}
