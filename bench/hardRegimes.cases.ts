/**
 * The scenarios of the hard-regimes section (issue 18): the docs/model.md §6 fit near capacity
 * with exponential and gamma (cv 1.5) service, three- and four-phase MMPP arrivals at 80–90 %
 * load, and the five slowest solves of the 10,000-scenario fuzz (test/helpers/fuzz.ts), kept
 * here as data so that the bench does not depend on the tests' random stream.
 */
import type { Scenario } from '../src/index.js';
import { chainScenario, FOUR_PHASES, THREE_PHASES } from './mmppModel.js';
import { capacity, scenario } from './solver.bench.js';

export interface HardCase {
  readonly name: string;
  readonly s: Scenario;
}

function nearCapacity(): HardCase[] {
  const out: HardCase[] = [];
  for (const law of ['EXPONENTIAL', 'GAMMA'] as const) {
    for (const B of [32, 64]) {
      for (const load of [0.9, 0.95, 0.97]) {
        const name = `${law === 'GAMMA' ? 'gamma cv 1.5' : 'exponential'}, B = ${B}, ${Math.round(load * 100)} % load`;
        out.push({ name, s: scenario(load * capacity(B), 1e-4, B, law, law === 'GAMMA' ? 1.5 : undefined) });
      }
    }
  }
  return out;
}

function mmpp(): HardCase[] {
  return [
    { name: 'MMPP 3 phases, B = 32, 80 % load', s: chainScenario(THREE_PHASES, 32, 0.8) },
    { name: 'MMPP 3 phases, B = 32, 90 % load', s: chainScenario(THREE_PHASES, 32, 0.9) },
    { name: 'MMPP 4 phases, B = 64, 80 % load', s: chainScenario(FOUR_PHASES, 64, 0.8) },
    { name: 'MMPP 4 phases, B = 64, 90 % load', s: chainScenario(FOUR_PHASES, 64, 0.9) },
  ];
}

/** Seed 20261132 #624's service-time table, seconds per batch of b = 1 … 32. */
const TABLE_624 = [
  25.2186862448035, 26.69719446781565, 27.822143984268685, 29.252045687771336, 30.1164572897063, 31.179884343171942,
  31.87718666533791, 32.31493715583184, 33.094448983143145, 33.31651841625085, 33.98557532413293, 34.547500078707415,
  35.45126960930874, 36.96690228847443, 37.11721539462426, 37.70018102843304, 37.947000956871435, 38.04635939213574,
  38.64867806137475, 39.598897481240954, 40.544801142944436, 40.76805005997584, 41.38672080621164, 41.958834693597865,
  43.36293087828243, 43.86021659795266, 45.317816482581236, 45.96548428794057, 46.32482466930975, 46.89360166813824,
  47.583049348568, 46.15084361877881,
];

/** A fuzz scenario: rate, B, service, power [idle, busy per item, busy base] and weights [latency, power]. */
function fuzzCase(name: string, arrivalRate: number, maxBatchSize: number, serviceTime: Scenario['serviceTime'], power: [number, number, number], weights: [number, number]): HardCase {
  const [idleWatts, perItem, base] = power;
  const [latencyWeight, powerWeight] = weights;
  return { name, s: { arrivalRate, maxBatchSize, serviceTime, power: { idleWatts, busyLinear: { perItem, base } }, objective: { latencyWeight, powerWeight } } };
}

/**
 * The fuzz's five slowest valid scenarios with this build (every valid one of the 10,000 timed
 * once, 2026-12-02), named by the fuzz's seed and index.
 */
function fuzzSlowest(): HardCase[] {
  return [
    fuzzCase('fuzz seed 7 #87: exponential, B = 413, 10 % load, 30 s per batch', 1.4614562666754531, 413, { linear: { perItem: 0.038874038792257655, base: 13.295807601416477 }, distribution: 'EXPONENTIAL' }, [37.367612747475505, 2.3714690993074328, 22.45525347534567], [0.002290040228814724, 3.3396196758160884e-06]),
    fuzzCase('fuzz seed 20261133 #2991: gamma cv 1.42, B = 28, 82 % load', 164.5175168183598, 28, { linear: { perItem: 0.0029281461428257785, base: 0.05789978335355285 }, distribution: 'GAMMA', cv: 1.4187686987664025 }, [9.741466715931892, 4.170622583478689, 38.99250030517578], [3.78970148393401, 0.000455205593675417]),
    fuzzCase('fuzz seed 20261133 #2076: gamma cv 1.37, B = 27, 85 % load', 1.7661182956244696, 27, { linear: { perItem: 0.46671996575036634, base: 0.3931604693222936 }, distribution: 'GAMMA', cv: 1.3725759324000717 }, [7.609412372112274, 3.7260019429959357, 42.070861940737814], [0.31578554462496616, 8.60560406343139e-05]),
    fuzzCase('fuzz seed 20261132 #624: gamma cv 1.05, B = 32, 84 % load, table', 0.5855005169028833, 32, { table: { values: TABLE_624 }, distribution: 'GAMMA', cv: 1.049919858483595 }, [6.018677651882172, 4.68175514601171, 13.288696750532836], [0.0017343576192474085, 1.0227941130190016e-06]),
    fuzzCase('fuzz seed 20261133 #1380: gamma cv 1.46, B = 32, 64 % load, µs per batch', 1230812.2423972366, 32, { linear: { perItem: 4.4634020768624833e-07, base: 2.374457944289679e-06 }, distribution: 'GAMMA', cv: 1.4600972665989609 }, [24.686467722058296, 4.46622698684223, 21.84307953575626], [0.006735108400727129, 8.456957630407879e-12]),
  ];
}

export function hardCases(): HardCase[] {
  return [...nearCapacity(), ...mmpp(), ...fuzzSlowest()];
}
