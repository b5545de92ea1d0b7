import type { ModelParams } from '../../src/model/scenario.js';
import type { Policy } from '../../src/policy/policy.js';
import { rng } from './random.js';

/**
 * A brute-force reference for the response-time tests: a discrete-event simulation of the batch
 * queue with deterministic or exponential service, written apart from src/ (it reads only the
 * scenario's rates, mean service times and the policy's table). Poisson or MMPP arrivals; epochs are completions, arrivals while idle and
 * phase changes while idle; at an epoch with s waiting in phase j the policy's entry (s, j) is
 * applied, past the table min(s, tailBatch). Returns the response times of `count` requests in
 * completion order, after a warm-up of count/10 discarded.
 */
export function simulateResponseTimes(p: ModelParams, policy: Policy, count: number, seed: number): Float64Array {
  const rates = p.arrivalProcess ? Array.from(p.arrivalProcess.rates) : [p.arrivalRate];
  const M = rates.length;
  const Q = p.arrivalProcess ? Array.from(p.arrivalProcess.generator) : [0];
  const phases = policy.phases ?? 1;
  const action = (s: number, j: number): number => {
    const i = s * phases + (phases === 1 ? 0 : j);
    return i < policy.actions.length ? policy.actions[i] : Math.min(s, policy.tailBatch);
  };
  if (p.distribution === 'GAMMA' && p.cv !== 1) throw new Error('queueSim: deterministic or exponential service only');
  const deterministic = p.distribution === 'DETERMINISTIC' || p.cv === 0;
  const rnd = rng(seed);
  const exp = (rate: number): number => (rate > 0 ? -Math.log(1 - rnd()) / rate : Infinity);
  const warm = Math.floor(count / 10);
  const out = new Float64Array(count);
  let done = 0;
  const queue: number[] = [];
  let head = 0;
  let batch: number[] = [];
  let busy = false;
  let j = 0;
  let t = 0;
  let tA = exp(rates[0]);
  let tP = exp(-Q[0]);
  let tC = Infinity;
  const epoch = (): void => {
    const a = action(queue.length - head, j);
    if (a === 0) return;
    batch = queue.slice(head, head + a);
    head += a;
    if (head > 4096) {
      queue.splice(0, head);
      head = 0;
    }
    busy = true;
    tC = t + (deterministic ? p.meanService[a] : exp(1 / p.meanService[a]));
  };
  while (done < warm + count) {
    if (tC <= tA && tC <= tP) {
      t = tC;
      for (const x of batch) {
        if (done >= warm && done < warm + count) out[done - warm] = t - x;
        done++;
      }
      busy = false;
      tC = Infinity;
      epoch();
    } else if (tA <= tP) {
      t = tA;
      queue.push(t);
      tA = t + exp(rates[j]);
      if (!busy) epoch();
    } else {
      t = tP;
      // Next phase ∝ Q_jj'; the arrival clock restarts at the new rate (memoryless).
      let u = rnd() * -Q[j * M + j];
      let next = j;
      for (let jj = 0; jj < M; jj++) {
        if (jj === j) continue;
        next = jj;
        u -= Q[j * M + jj];
        if (u < 0) break;
      }
      j = next;
      tA = t + exp(rates[j]);
      tP = t + exp(-Q[j * M + j]);
      if (!busy) epoch();
    }
  }
  return out;
}

/**
 * Share of the samples at or below t and its standard error by batch means over `blocks`
 * consecutive blocks (successive response times are correlated; rare tail events cluster, so the
 * blocks must be long).
 */
export function shareBelow(samples: Float64Array, t: number, blocks = 20): { share: number; se: number } {
  const size = Math.floor(samples.length / blocks);
  const f: number[] = [];
  for (let b = 0; b < blocks; b++) {
    let hit = 0;
    for (let i = b * size; i < (b + 1) * size; i++) if (samples[i] <= t) hit++;
    f.push(hit / size);
  }
  const mean = f.reduce((x, y) => x + y, 0) / blocks;
  const v = f.reduce((x, y) => x + (y - mean) ** 2, 0) / (blocks - 1);
  return { share: mean, se: Math.sqrt(v / blocks) };
}

/**
 * The reference for timeout batchers (TF Serving's batching as docs/simulator.md states it):
 * Poisson arrivals, deterministic service; when the server is free it serves `maxBatch` if that
 * many wait, else everything waiting once the oldest has waited `timeout` (at once if it already
 * has). Written apart from src/sim. Response times of `count` requests after count/10 warm-up.
 */
export function simulateTimeoutBatcher(p: ModelParams, timeout: number, maxBatch: number, count: number, seed: number): Float64Array {
  const rnd = rng(seed);
  const gap = (): number => -Math.log(1 - rnd()) / p.arrivalRate;
  const warm = Math.floor(count / 10);
  const out = new Float64Array(count);
  const waiting: number[] = [];
  let first = 0; // index of the oldest waiting arrival
  let done = 0;
  let nextArrival = gap();
  let freeAt = 0; // the server is busy until then
  while (done < warm + count) {
    const n = waiting.length - first;
    // The next start: as soon as the server is free, if maxBatch wait or the oldest has timed out.
    const start = n === 0 ? Infinity : Math.max(freeAt, n >= maxBatch ? waiting[first + maxBatch - 1] : waiting[first] + timeout);
    if (nextArrival < start) {
      waiting.push(nextArrival);
      nextArrival += gap();
      continue;
    }
    const size = Math.min(n, maxBatch);
    const end = start + p.meanService[size];
    for (let i = 0; i < size; i++, done++) if (done >= warm && done < warm + count) out[done - warm] = end - waiting[first + i];
    first += size;
    freeAt = end;
    if (first > 4096) {
      waiting.splice(0, first);
      first = 0;
    }
  }
  return out;
}
