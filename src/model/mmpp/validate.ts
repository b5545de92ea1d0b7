import { fitTraceOnce } from '../../fit/fitCache.js';
import type { TraceFitReport } from '../../fit/fitTrace.js';
import { checkArray, checkNumber, checkObject, describe, fieldNames, isAbsent, isObj, jsonNames, lengthBounds, readNumber, rejectUnknown, type Obj } from '../../validate/index.js';
import { ScenarioError } from '../errors.js';
import { burstToMmpp } from './burst.js';
import { MMPP_LIMITS } from './limits.js';
import { makeMmpp, unreachablePhase, type MmppProcess } from './process.js';
import { ARRIVAL_PROCESS, BURST, GENERATOR_ENTRY, MMPP, PHASE_RATE, TRACE } from './shape.js';
import { checkSecondsTimestamps } from '../timestamps.js';

/** A validated arrival process, with the fit report when it came from a trace. */
export interface ValidatedArrivals {
  readonly process: MmppProcess;
  readonly fit?: TraceFitReport;
}

/**
 * Validates `arrivalProcess` (one of mmpp, burst, trace) and returns the MMPP it describes.
 * Every refusal names the field: the bad rate, the generator entry or row, the phase that
 * makes Q reducible, the burst parameter out of range, the first out-of-order timestamp.
 */
export function validateArrivalProcess(input: unknown, path = 'arrivalProcess'): ValidatedArrivals {
  const raw = jsonNames(input, ARRIVAL_PROCESS, path);
  const kinds = fieldNames(ARRIVAL_PROCESS);
  if (!isObj(raw)) throw new ScenarioError(path, `must be an object with one of ${kinds.join(', ')} (got ${describe(raw)})`);
  rejectUnknown(raw, path, kinds);
  const given = kinds.filter((k) => !isAbsent(raw[k]));
  if (given.length !== 1) {
    throw new ScenarioError(path, given.length === 0 ? `needs one of ${kinds.join(', ')}` : `give only one of ${given.join(', ')}`);
  }
  const kind = given[0];
  const at = `${path}.${kind}`;
  if (kind === 'mmpp') return { process: mmpp(checkObject(raw[kind], at, MMPP), at) };
  if (kind === 'burst') return { process: burst(checkObject(raw[kind], at, BURST), at) };
  return trace(checkObject(raw[kind], at, TRACE), at);
}

function mmpp(o: Obj, path: string): MmppProcess {
  const rawRates = checkArray(o.rates, `${path}.rates`);
  const M = rawRates.length;
  const [min, max] = lengthBounds(MMPP.fields.rates);
  if (M < min || M > max) throw new ScenarioError(`${path}.rates`, `must have ${min} to ${max} phases (got ${M})`);
  const rates = rawRates.map((v, j) => checkNumber(v, `${path}.rates[${j}]`, PHASE_RATE));
  if (!rates.some((r) => r > 0)) throw new ScenarioError(`${path}.rates`, 'must have at least one phase with a rate > 0');
  const Q = generator(o.generator, `${path}.generator`, M);
  const bad = unreachablePhase(Q, M);
  if (bad >= 0) {
    throw new ScenarioError(
      `${path}.generator`,
      `is reducible: phase ${bad} and phase 0 do not reach each other through positive off-diagonal rates (every phase must be able to reach every other)`,
    );
  }
  return makeMmpp(rates, Q, 'mmpp');
}

/** Reads Q flat (M² entries, the proto form) or as M rows; checks signs and row sums. */
function generator(v: unknown, path: string, M: number): number[] {
  const arr = checkArray(v, path);
  const nested = arr.length > 0 && Array.isArray(arr[0]);
  const entry = (i: number, j: number): [unknown, string] => {
    if (!nested) return [arr[i * M + j], `${path}[${i * M + j}]`];
    const row = checkArray(arr[i], `${path}[${i}]`);
    if (row.length !== M) throw new ScenarioError(`${path}[${i}]`, `must have ${M} entries, one per phase (got ${row.length})`);
    return [row[j], `${path}[${i}][${j}]`];
  };
  if (nested ? arr.length !== M : arr.length !== M * M) {
    throw new ScenarioError(path, `must be ${M}×${M} (${M * M} entries row-major, or ${M} rows), one row per phase of rates (got ${arr.length} ${nested ? 'rows' : 'entries'})`);
  }
  const Q = new Array<number>(M * M).fill(0);
  for (let i = 0; i < M; i++) {
    let sum = 0;
    let scale = 0;
    for (let j = 0; j < M; j++) {
      const [raw, where] = entry(i, j);
      const q = checkNumber(raw, where, GENERATOR_ENTRY);
      if (i !== j && q < 0) throw new ScenarioError(where, `is an off-diagonal rate (phase ${i} → ${j}) and must be ≥ 0 (got ${q})`);
      if (i === j && q > 0) throw new ScenarioError(where, `is a diagonal entry and must be ≤ 0 (got ${q})`);
      Q[i * M + j] = q;
      sum += q;
      scale = Math.max(scale, Math.abs(q));
    }
    if (Math.abs(sum) > MMPP_LIMITS.rowSumTolerance * Math.max(scale, 1e-300)) {
      throw new ScenarioError(nested ? `${path}[${i}]` : path, `row ${i} sums to ${sum}; every row of a generator must sum to 0`);
    }
  }
  return Q;
}

function burst(o: Obj, path: string): MmppProcess {
  const meanRate = readNumber(o, BURST, 'meanRate', path);
  const peakToMean = readNumber(o, BURST, 'peakToMean', path);
  const meanBurstSeconds = readNumber(o, BURST, 'meanBurstSeconds', path);
  const meanGapSeconds = readNumber(o, BURST, 'meanGapSeconds', path);
  return burstToMmpp({ meanRate, peakToMean, meanBurstSeconds, meanGapSeconds }, path);
}

function trace(o: Obj, path: string): ValidatedArrivals {
  const ts = checkArray(o.timestamps, `${path}.timestamps`);
  const [min, max] = lengthBounds(TRACE.fields.timestamps);
  if (ts.length < min || ts.length > max) {
    throw new ScenarioError(`${path}.timestamps`, `must hold ${min} to ${max} arrival times (got ${ts.length})`);
  }
  const times = new Float64Array(ts.length);
  for (let i = 0; i < ts.length; i++) {
    const v = ts[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new ScenarioError(`${path}.timestamps[${i}]`, `must be a finite number (got ${describe(v)})`);
    if (i > 0 && v < times[i - 1]) {
      throw new ScenarioError(`${path}.timestamps[${i}]`, `is ${v}, before the previous timestamp ${times[i - 1]}: timestamps must be sorted`);
    }
    times[i] = v;
  }
  if (!(times[times.length - 1] > times[0])) throw new ScenarioError(`${path}.timestamps`, 'must span a positive time');
  checkSecondsTimestamps(times[0], `${path}.timestamps`);
  const fit = fitTraceOnce(times); // a grid over one trace fits it once
  return { process: makeMmpp(fit.rates, fit.generator, 'trace', fit.report), fit: fit.report };
}

/**
 * arrivalRate beside an arrival process: omitted or 0 means "the process's mean rate"; any
 * other value must equal λ̄ to 1e-6 relative (so a scenario cannot say two different loads).
 * Returns λ̄, which becomes the scenario's arrivalRate for everything that reads it.
 */
export function meanRateFor(arrivalRate: unknown, proc: MmppProcess, maxRate: number): number {
  const lambda = proc.meanRate;
  if (!(lambda > 0 && lambda <= maxRate)) {
    throw new ScenarioError('arrivalProcess', `has mean rate λ̄ = ${lambda} /s; it must be in (0, ${maxRate}]`);
  }
  if (isAbsent(arrivalRate) || arrivalRate === 0) return lambda;
  const rate = checkNumber(arrivalRate, 'arrivalRate', {});
  if (Math.abs(rate - lambda) > MMPP_LIMITS.meanRateTolerance * lambda) {
    throw new ScenarioError(
      'arrivalRate',
      `is ${rate} /s but arrivalProcess has mean rate λ̄ = π·λ = ${lambda} /s: give 0 (or omit arrivalRate) to use λ̄, or make them agree`,
    );
  }
  return lambda;
}

/** Stability under MMPP arrivals needs only the mean rate below capacity B/l(B) (docs/model.md §7). */
export function checkMmppCapacity(proc: MmppProcess, B: number, lB: number): void {
  const capacity = B / lB;
  if (!(proc.meanRate < capacity)) {
    throw new ScenarioError(
      'arrivalProcess',
      `has mean rate λ̄ = ${+proc.meanRate.toPrecision(6)} /s, not below the capacity maxBatchSize / l(B) = ${B} / ${+lB.toPrecision(6)} s = ${+capacity.toPrecision(6)} /s: no policy can keep the queue stable`,
    );
  }
}
