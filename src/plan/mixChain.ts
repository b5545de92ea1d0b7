import { buildArrivalTable, type ArrivalTable } from '../model/arrivalTable.js';
import { LimitError } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import type { ModelParams } from '../model/scenario.js';
import { BandChain, solveChain } from '../policy/chain.js';
import { actionAt, type Policy } from '../policy/policy.js';
import type { Figures } from './figures.js';

/**
 * Exact evaluation of a switching mix of two deterministic policies, independent of the
 * renewal argument that chose its probability (mix.ts): the embedded chain on (s, m), where
 * m says which policy the current cycle follows. At queue length `state` a coin is tossed
 * (probability `p` for `first`) and the chosen policy is followed until the next visit to
 * `state`. When the two policies differ only at `state`, m is irrelevant and this is the
 * stationary randomised policy "in `state` take first's action with probability p".
 *
 * State (s, m) has index 2s + m, so a jump of Δs moves the index by 2Δs ± 1.
 */
export interface MixEvaluation extends Figures {
  /** Stationary probability of each copy (following first / second). */
  readonly modeShare: readonly [number, number];
}

/** The top of the extension may hold at most this (as evaluatePolicy). */
const EXTENSION_TOP_MASS = 1e-13;

interface Branch {
  readonly action: number;
  readonly prob: number;
  readonly mode: number;
}

export function evaluateMix(p: ModelParams, first: Policy, second: Policy, state: number, prob: number, pmfs?: ArrivalTable): MixEvaluation {
  const tables = pmfs ?? buildArrivalTable(p);
  const policies = [first, second];
  const branches = (s: number, m: number): Branch[] =>
    s === state
      ? [
          { action: actionAt(first, s), prob, mode: 0 },
          { action: actionAt(second, s), prob: 1 - prob, mode: 1 },
        ].filter((b) => b.prob > 0)
      : [{ action: actionAt(policies[m], s), prob: 1, mode: m }];
  let down = 1;
  let up = 1;
  for (let b = 1; b <= p.maxBatchSize; b++) {
    down = Math.max(down, b - tables.offset[b]);
    up = Math.max(up, tables.offset[b] + tables.length[b] - 1 - b);
  }
  const reach = down + up;
  let n = Math.max(first.actions.length, second.actions.length, state + 1) + 2 * reach;
  n = Math.max(n, 64);
  for (;;) {
    if (2 * n * (2 * reach + 3) > LIMITS.maxBandEntries) {
      throw new LimitError('policy', `the mix's queue does not settle within ${n} states: a policy is too close to instability`);
    }
    const ch = new BandChain(2 * n, 2 * down + 1, 2 * up + 1);
    const parts = build(ch, p, tables, n, branches);
    const sol = solveChain(ch);
    let top = 0;
    for (let s = Math.max(0, n - reach); s < n; s++) top += sol.stationary[2 * s] + sol.stationary[2 * s + 1];
    if (top < EXTENSION_TOP_MASS) return parts(sol.stationary);
    n *= 2;
  }
}

/** Fills the chain and returns the function that turns its stationary law into figures (docs/model.md §5 ratios). */
function build(
  ch: BandChain,
  p: ModelParams,
  pmfs: ArrivalTable,
  n: number,
  branches: (s: number, m: number) => Branch[],
): (nu: Float64Array) => MixEvaluation {
  const lambda = p.arrivalRate;
  // Per index: expected H (latency numerator), sojourn, energy, busy time, served, batches.
  const H = new Float64Array(2 * n);
  const Y = new Float64Array(2 * n);
  const E = new Float64Array(2 * n);
  const busy = new Float64Array(2 * n);
  const served = new Float64Array(2 * n);
  const batches = new Float64Array(2 * n);
  const yFirst = new Float64Array(2 * n); // sojourn spent following `first` (the branch's mode, not the index's)
  for (let s = 0; s < n; s++) {
    for (let m = 0; m < 2; m++) {
      const i = 2 * s + m;
      for (const br of branches(s, m)) {
        const a = br.action;
        if (a === 0) {
          ch.add(i, 2 * Math.min(s + 1, n - 1) + br.mode, br.prob);
          H[i] += (br.prob * s) / lambda;
          Y[i] += br.prob / lambda;
          E[i] += (br.prob * p.idlePower) / lambda;
          if (br.mode === 0) yFirst[i] += br.prob / lambda;
          continue;
        }
        const base = s - a + pmfs.offset[a];
        const st = pmfs.start[a];
        for (let k = 0; k < pmfs.length[a]; k++) ch.add(i, 2 * Math.min(base + k, n - 1) + br.mode, br.prob * pmfs.probs[st + k]);
        const l = p.meanService[a];
        H[i] += br.prob * (s * l + (lambda * p.secondMoment[a]) / 2);
        Y[i] += br.prob * l;
        E[i] += br.prob * p.busyPower[a] * l;
        busy[i] += br.prob * l;
        served[i] += br.prob * a;
        batches[i] += br.prob;
        if (br.mode === 0) yFirst[i] += br.prob * l;
      }
      ch.time[i] = Y[i];
      ch.reward[i] = H[i];
    }
  }
  return (nu) => {
    let sH = 0;
    let sY = 0;
    let sE = 0;
    let sBusy = 0;
    let sServed = 0;
    let sBatches = 0;
    let timeFirst = 0;
    for (let i = 0; i < 2 * n; i++) {
      const v = nu[i];
      if (v === 0) continue;
      sH += v * H[i];
      sY += v * Y[i];
      sE += v * E[i];
      sBusy += v * busy[i];
      sServed += v * served[i];
      sBatches += v * batches[i];
      timeFirst += v * yFirst[i];
    }
    return {
      meanResponseTime: sH / (lambda * sY),
      meanPower: sE / sY,
      throughput: sServed / sY,
      utilization: sBusy / sY,
      meanBatchSize: sBatches > 0 ? sServed / sBatches : 0,
      modeShare: [timeFirst / sY, 1 - timeFirst / sY],
    };
  };
}
