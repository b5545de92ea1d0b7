import type { ArrivalTable } from '../model/arrivalTable.js';
import type { MmppProcess } from '../model/mmpp/process.js';
import type { ModelParams } from '../model/scenario.js';
import { BandChain } from './chain.js';

/**
 * The embedded chain of a policy over `levels` queue levels × M phases × `modes` copies (a
 * plain policy has one mode; a switching mix of two policies has one per policy it follows),
 * the overflow past the last level kept there. Flat index ((s·M + j)·modes + m). At each state
 * the policy takes one or more branches: an action, its probability, and the mode it goes on
 * in. Besides the transitions, each index gets its expected per-epoch sums, from which the
 * long-run figures are ratios of stationary averages (docs/model.md §5):
 *   H  response-time numerator: s·y (wait) or s·l(b) + E[∫₀^{T_b} A dt | j] (serve b)
 *   Y  sojourn, E energy, busy time, requests served, batches started.
 */
export interface StateSums {
  readonly H: Float64Array;
  readonly Y: Float64Array;
  readonly E: Float64Array;
  readonly busy: Float64Array;
  readonly served: Float64Array;
  readonly batches: Float64Array;
}

/** Lists the branches at (s, j) in mode m by calling `take(action, probability, nextMode)`. */
export type Branches = (s: number, j: number, m: number, take: (action: number, prob: number, mode: number) => void) => void;

export interface StateChain {
  readonly chain: BandChain;
  readonly sums: StateSums;
}

export function buildStateChain(
  p: ModelParams,
  proc: MmppProcess,
  table: ArrivalTable,
  shape: { readonly levels: number; readonly modes: number; readonly loLevels: number; readonly hiLevels: number },
  branches: Branches,
): StateChain {
  const M = proc.phases;
  const Q = proc.generator;
  const { levels, modes } = shape;
  const K = M * modes; // indices per level
  const n = levels * K;
  const ch = new BandChain(n, (shape.loLevels + 1) * K - 1, (shape.hiLevels + 1) * K - 1);
  const sums: StateSums = {
    H: new Float64Array(n),
    Y: new Float64Array(n),
    E: new Float64Array(n),
    busy: new Float64Array(n),
    served: new Float64Array(n),
    batches: new Float64Array(n),
  };
  const at = (s: number, j: number, m: number): number => (Math.min(s, levels - 1) * M + j) * modes + m;
  let i = 0;
  let s = 0;
  let j = 0;
  const take = (a: number, prob: number, mode: number): void => {
    if (a === 0) {
      const out = proc.rates[j] - Q[j * M + j];
      const y = 1 / out;
      if (proc.rates[j] > 0) ch.add(i, at(s + 1, j, mode), (prob * proc.rates[j]) / out);
      for (let jj = 0; jj < M; jj++) if (jj !== j) ch.add(i, at(s, jj, mode), (prob * Q[j * M + jj]) / out);
      sums.H[i] += prob * s * y;
      sums.Y[i] += prob * y;
      sums.E[i] += prob * p.idlePower * y;
      return;
    }
    const L = table.length[a];
    const base = table.start[a] + j * L * M;
    const first = s - a + table.offset[a];
    for (let k = 0; k < L; k++) {
      for (let jj = 0; jj < M; jj++) ch.add(i, at(first + k, jj, mode), prob * table.probs[base + k * M + jj]);
    }
    const l = p.meanService[a];
    sums.H[i] += prob * (s * l + proc.meanRate * table.hold[a * M + j]);
    sums.Y[i] += prob * l;
    sums.E[i] += prob * p.busyPower[a] * l;
    sums.busy[i] += prob * l;
    sums.served[i] += prob * a;
    sums.batches[i] += prob;
  };
  for (s = 0; s < levels; s++) {
    for (j = 0; j < M; j++) {
      for (let m = 0; m < modes; m++) {
        i = (s * M + j) * modes + m;
        branches(s, j, m, take);
        // Only the stationary law is read; a reward is still needed by the reduction.
        ch.time[i] = sums.Y[i];
        ch.reward[i] = sums.H[i];
      }
    }
  }
  return { chain: ch, sums };
}

/** Long-run figures of a stationary law over a state chain: ratios of the averages of its sums. */
export function chainFigures(p: ModelParams, proc: MmppProcess, sums: StateSums, nu: Float64Array) {
  let h = 0;
  let y = 0;
  let e = 0;
  let busy = 0;
  let served = 0;
  let batches = 0;
  for (let i = 0; i < nu.length; i++) {
    const v = nu[i];
    if (v === 0) continue;
    h += v * sums.H[i];
    y += v * sums.Y[i];
    e += v * sums.E[i];
    busy += v * sums.busy[i];
    served += v * sums.served[i];
    batches += v * sums.batches[i];
  }
  const meanResponseTime = h / (proc.meanRate * y);
  const meanPower = e / y;
  return {
    averageCost: p.latencyWeight * meanResponseTime + p.powerWeight * meanPower,
    meanResponseTime,
    meanPower,
    throughput: served / y,
    utilization: busy / y,
    meanBatchSize: batches > 0 ? served / batches : 0,
  };
}
