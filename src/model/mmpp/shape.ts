/**
 * The fields of `arrivalProcess` (docs/model.md §7), described once: validate.ts reads them by these
 * descriptions and the scenario schema publishes them. Units: requests/s, seconds.
 */
import { anyOf, array, number, object } from '../../validate/index.js';
import { MMPP_LIMITS } from './limits.js';

const R = MMPP_LIMITS.maxRate;
const M = MMPP_LIMITS.maxPhases;

/** λ_j of one phase. */
export const PHASE_RATE = number('arrival rate of one phase, requests/s', { min: 0, max: R });
/** One entry of the generator Q (its signs are checked by position). */
export const GENERATOR_ENTRY = number('rate of leaving phase i for phase j (off-diagonal, ≥ 0) or minus the row\'s other entries (diagonal, ≤ 0), per second', { min: -R, max: R });
/** One arrival time of a trace. */
export const TIMESTAMP = number('arrival time, seconds');

export const MMPP = object(
  'A Markov-modulated Poisson process: arrivals at rate rates[j] while the phase is j; the phase moves by the generator Q',
  {
    rates: array('λ_j per phase, requests/s; at least one > 0', PHASE_RATE, { minItems: 1, maxItems: M, required: true }),
    generator: anyOf(
      'Q, M×M for the M phases of rates: row-major (M² entries, the proto form) or as M rows; every row sums to 0 and every phase reaches every other',
      [
        array('row-major entries', GENERATOR_ENTRY, { minItems: 1, maxItems: M * M }),
        array('rows, one per phase', array('one row', GENERATOR_ENTRY, { minItems: 1, maxItems: M }), { minItems: 1, maxItems: M }),
      ],
      { required: true },
    ),
  },
  { name: 'mmpp' },
);

const seconds = (doc: string) => number(doc, { above: 0, max: R, required: true });

export const BURST = object(
  'A two-phase burst profile: bursts at peakToMean × meanRate, of mean length meanBurstSeconds, every meanGapSeconds on average',
  {
    meanRate: number('mean arrival rate λ̄, requests/s', { above: 0, max: R, required: true }),
    peakToMean: number('burst rate / mean rate, from 1 up to 1 + meanGapSeconds/meanBurstSeconds', { min: 1, max: R, required: true }),
    meanBurstSeconds: seconds('mean length of a burst, seconds'),
    meanGapSeconds: seconds('mean time between bursts, seconds'),
  },
  { name: 'burst' },
);

export const TRACE = object(
  'Arrival times to fit a two-phase MMPP to',
  {
    timestamps: array('arrival times in seconds, sorted, spanning a positive time', TIMESTAMP, {
      minItems: MMPP_LIMITS.minTraceArrivals,
      maxItems: MMPP_LIMITS.maxTraceArrivals,
      required: true,
    }),
  },
  { name: 'trace' },
);

export const ARRIVAL_PROCESS = object(
  'Bursty arrivals instead of Poisson (docs/mmpp.md): exactly one of mmpp, burst, trace. With it, arrivalRate may be omitted or 0 (then it is the mean rate λ̄); any other value must equal λ̄',
  { mmpp: MMPP, burst: BURST, trace: TRACE },
  { exactlyOne: ['mmpp', 'burst', 'trace'], name: 'arrivalProcess' },
);
