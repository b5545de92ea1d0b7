import type { ArrivalTable } from '../model/arrivalTable.js';
import { epochSojourn } from '../model/epoch.js';
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

/**
 * Writes the branches at (s, j) in mode m into `out` (at most two) and returns how many: action,
 * probability, and the mode the chain goes on in. Arrays, not callbacks or objects, keep the
 * builder's loop free of allocations and closures (it runs for every state of every evaluation).
 */
export type Branches = (s: number, j: number, m: number, out: BranchBuffer) => number;

export interface BranchBuffer {
  readonly action: Int32Array;
  readonly prob: Float64Array;
  readonly mode: Int32Array;
}

export interface StateChain {
  readonly chain: BandChain;
  readonly sums: StateSums;
}

export function buildStateChain(
  p: ModelParams,
  proc: MmppProcess,
  table: ArrivalTable,
  shape: ChainShape,
  branches: Branches,
): StateChain {
  const K = proc.phases * shape.modes; // indices per level
  // The laws go into the chain's memory, where the kernel adding them to the band reads them.
  const ch = new BandChain(shape.levels * K, (shape.loLevels + 1) * K - 1, (shape.hiLevels + 1) * K - 1, K, table.probs.length);
  ch.memory.extra.set(table.probs);
  return { chain: ch, sums: writeStates(p, proc, table, shape, branches, ch) };
}

/** Only the per-state sums of the chain buildStateChain builds, without its band (for a reduction that reads the laws themselves: geometricChain.ts). */
export function stateSums(p: ModelParams, proc: MmppProcess, table: ArrivalTable, shape: ChainShape, branches: Branches): StateSums {
  return writeStates(p, proc, table, shape, branches, undefined);
}

export interface ChainShape {
  readonly levels: number;
  readonly modes: number;
  readonly loLevels: number;
  readonly hiLevels: number;
}

/** The sums of every state, and its row, reward and time into `ch` when given. */
function writeStates(p: ModelParams, proc: MmppProcess, table: ArrivalTable, shape: ChainShape, branches: Branches, ch: BandChain | undefined): StateSums {
  const M = proc.phases;
  const Q = proc.generator;
  const { levels, modes } = shape;
  const n = levels * M * modes;
  const band = ch?.a;
  const W = ch?.width ?? 0;
  const lo = ch?.lo ?? 0;
  const H = new Float64Array(n);
  const Y = new Float64Array(n);
  const E = new Float64Array(n);
  const busy = new Float64Array(n);
  const served = new Float64Array(n);
  const batches = new Float64Array(n);
  const out: BranchBuffer = { action: new Int32Array(2), prob: new Float64Array(2), mode: new Int32Array(2) };
  const top = levels - 1;
  for (let s = 0; s < levels; s++) {
    for (let j = 0; j < M; j++) {
      for (let m = 0; m < modes; m++) {
        const i = (s * M + j) * modes + m;
        const row = i * W - i + lo; // band[row + z] = entry (i, z)
        const count = branches(s, j, m, out);
        for (let r = 0; r < count; r++) {
          const a = out.action[r];
          const prob = out.prob[r];
          const mode = out.mode[r];
          if (a === 0) {
            const rate = proc.rates[j];
            const leave = rate - Q[j * M + j];
            const y = epochSojourn(p, proc, 0, j);
            if (band) {
              if (rate > 0) band[row + (Math.min(s + 1, top) * M + j) * modes + mode] += (prob * rate) / leave;
              for (let jj = 0; jj < M; jj++) if (jj !== j) band[row + (s * M + jj) * modes + mode] += (prob * Q[j * M + jj]) / leave;
            }
            H[i] += prob * s * y;
            Y[i] += prob * y;
            E[i] += prob * p.idlePower * y;
            continue;
          }
          if (ch) {
            const L = table.length[a];
            const base = table.start[a] + j * L * M;
            // Count k to level min(s − a + offset + k, top), in the order of k.
            ch.memory.kernels.addServeLaw(ch.memory.at.a, row, ch.memory.at.extra, base, L, M, s - a + table.offset[a], top, modes, mode, prob);
          }
          const l = epochSojourn(p, proc, a, j);
          H[i] += prob * (s * l + proc.meanRate * table.hold[a * M + j]);
          Y[i] += prob * l;
          E[i] += prob * p.busyPower[a] * l;
          busy[i] += prob * l;
          served[i] += prob * a;
          batches[i] += prob;
        }
        // Only the stationary law is read; a reward is still needed by the reduction.
        if (ch) {
          ch.time[i] = Y[i];
          ch.reward[i] = H[i];
        }
      }
    }
  }
  return { H, Y, E, busy, served, batches };
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
