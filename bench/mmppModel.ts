/**
 * The MMPP benchmark model shared by bench/mmpp.bench.ts (CPU) and bench/mmppGpu.bench.ts
 * (GPU): four phases in a birth–death chain, B = 128, deterministic service (V100 fit).
 */
import type { Scenario } from '../src/index.js';

/** Four phases in a birth–death chain: quiet, normal, busy, burst (mean ≈ 3,000 /s; capacity 6,308 /s). */
export const RATES = [1500, 2500, 4000, 7000];
const UP = [4, 3, 2];
const DOWN = [6, 8, 20];

function generator(): number[] {
  const Q = new Array<number>(16).fill(0);
  for (let j = 0; j < 3; j++) {
    Q[j * 4 + j + 1] = UP[j];
    Q[(j + 1) * 4 + j] = DOWN[j];
  }
  for (let j = 0; j < 4; j++) Q[j * 4 + j] = -Q.slice(j * 4, j * 4 + 4).reduce((a, b) => a + b, 0);
  return Q;
}

/** The benchmark scenario with maxQueue S. */
export function mmppBenchScenario(S: number): Scenario {
  return {
    arrivalRate: 0,
    maxBatchSize: 128,
    serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'DETERMINISTIC' },
    power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
    objective: { latencyWeight: 1, powerWeight: 1e-3 },
    solver: { maxQueue: S },
    arrivalProcess: { mmpp: { rates: RATES, generator: generator() } },
  };
}
