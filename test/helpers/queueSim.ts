import type { ModelParams } from '../../src/model/scenario.js';
import type { Policy } from '../../src/policy/policy.js';

/**
 * A brute-force reference for the response-time tests: a discrete-event simulation of the batch
 * queue with exponential service, written apart from src/ (it reads only the scenario's rates and
 * the policy's table). Poisson or MMPP arrivals; epochs are completions, arrivals while idle and
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
  const rnd = mulberry32(seed);
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
    tC = t + exp(1 / p.meanService[a]);
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

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let z = a;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}
