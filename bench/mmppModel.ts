/**
 * The MMPP benchmark models: four phases in a birth–death chain, B = 128, deterministic service
 * (V100 fit), shared by bench/mmpp.bench.ts (CPU) and bench/mmppGpu.bench.ts (GPU); and the
 * three-phase chain of the one-model issue, which bench/baseline.bench.ts and
 * bench/hardRegimes.bench.ts solve at a chosen load.
 */
import type { Scenario } from '../src/index.js';
import { capacity, scenario } from './solver.bench.js';

/** Phases in a birth–death chain: arrival rates (/s) and the rates up and down between neighbours. */
export interface PhaseChain {
  readonly rates: readonly number[];
  readonly up: readonly number[];
  readonly down: readonly number[];
}

/** Four phases: quiet, normal, busy, burst (mean ≈ 3,000 /s; capacity 6,308 /s at B = 128). */
export const FOUR_PHASES: PhaseChain = { rates: [1500, 2500, 4000, 7000], up: [4, 3, 2], down: [6, 8, 20] };
/** Three phases, equally likely (mean 4,167 /s). */
export const THREE_PHASES: PhaseChain = { rates: [2000, 4000, 6500], up: [5, 4], down: [5, 4] };
export const RATES = FOUR_PHASES.rates;

/** The chain's generator Q, row-major. */
export function generator(c: PhaseChain): number[] {
  const M = c.rates.length;
  const Q = new Array<number>(M * M).fill(0);
  for (let j = 0; j + 1 < M; j++) {
    Q[j * M + j + 1] = c.up[j];
    Q[(j + 1) * M + j] = c.down[j];
  }
  for (let j = 0; j < M; j++) Q[j * M + j] = -Q.slice(j * M, j * M + M).reduce((a, b) => a + b, 0);
  return Q;
}

/** The mean arrival rate π·λ (a birth–death chain's π_{j+1} = π_j · up_j / down_j). */
function meanRate(c: PhaseChain): number {
  const pi = [1];
  for (let j = 0; j + 1 < c.rates.length; j++) pi.push((pi[j] * c.up[j]) / c.down[j]);
  const total = pi.reduce((a, b) => a + b, 0);
  return pi.reduce((a, p, j) => a + p * c.rates[j], 0) / total;
}

/**
 * The docs/model.md §6 scenario (power weight 1e-4) under the chain's arrivals, B = `B`; with
 * `load`, every phase's rate scaled so that the mean is that fraction of the capacity B/l(B).
 */
export function chainScenario(c: PhaseChain, B: number, load?: number): Scenario {
  const k = load === undefined ? 1 : (load * capacity(B)) / meanRate(c);
  return { ...scenario(0, 1e-4, B), arrivalProcess: { mmpp: { rates: c.rates.map((r) => r * k), generator: generator(c) } } };
}

/** The four-phase benchmark scenario with maxQueue S. */
export function mmppBenchScenario(S: number): Scenario {
  return { ...scenario(0, 1e-3, 128), solver: { maxQueue: S }, arrivalProcess: { mmpp: { rates: [...FOUR_PHASES.rates], generator: generator(FOUR_PHASES) } } };
}
