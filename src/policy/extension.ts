import type { ArrivalTable } from '../model/arrivalTable.js';
import { LimitError, throwIfAborted } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import type { MmppProcess } from '../model/mmpp/process.js';
import type { ModelParams } from '../model/scenario.js';
import { BandChain, solveChain } from './chain.js';
import { actionAt, levelsOf, type Policy } from './policy.js';

/** Mass the extension's top may hold before it is grown (docs/model.md §5 asks < 1e-12 in all). */
export const EXTENSION_TOP_MASS = 1e-13;
/** Two successive per-window decay ratios within this relative distance count as one geometric decay. */
const STEADY_DECAY = 0.05;

export interface ExtendedSolution {
  /** Stationary distribution, flat s-major over `levels` × M. */
  readonly stationary: Float64Array;
  readonly levels: number;
  /** Mass in the top `reach` levels (distorted by the cut: what lands past it stays there). */
  readonly top: number;
  /** Geometric decay of the tail per `reach` levels, measured below the distorted top, when it is clean. */
  readonly decay?: { readonly s0: number; readonly above: number; readonly perReach: number; readonly reach: number };
}

/** Mass of queue level s in a flat s-major distribution over M phases. */
export function levelMass(nu: Float64Array, M: number, s: number): number {
  let m = 0;
  for (let j = 0; j < M; j++) m += nu[s * M + j];
  return m;
}

/**
 * Solves the policy's chain extended past its table by serving min(s, tailBatch), growing the
 * extension until the caller stops asking. Each growth jumps to where the measured decay of
 * the tail puts the top mass below the target (or doubles when the decay is not yet clean),
 * so a deep queue costs one or two solves instead of a ladder of doublings.
 */
export function* extendedSolutions(
  p: ModelParams,
  proc: MmppProcess,
  policy: Policy,
  table: ArrivalTable,
  opts: { readonly signal?: AbortSignal; readonly minLevels?: number },
): Generator<ExtendedSolution> {
  const M = proc.phases;
  let lo = 1;
  let hi = 1;
  const usedBatch = (b: number): void => {
    lo = Math.max(lo, b);
    hi = Math.max(hi, table.offset[b] + table.length[b] - 1 - b);
  };
  for (let x = 0; x < policy.actions.length; x++) if (policy.actions[x] > 0) usedBatch(policy.actions[x]);
  for (let b = 1; b <= policy.tailBatch; b++) usedBatch(b);
  const reach = lo + hi;
  const tableLevels = levelsOf(policy);
  const maxLevels = Math.floor(LIMITS.maxBandEntries / ((reach + 1) * M * M));
  let n = Math.max(tableLevels + 2 * reach, opts.minLevels ?? 0, 64);
  /** The shortest extension whose windows the decay can be read from (the table, three windows, the distorted top). */
  const measurable = Math.max(tableLevels, opts.minLevels ?? 0) + 6 * reach;
  for (;;) {
    throwIfAborted(opts.signal);
    if (n > maxLevels) {
      throw new LimitError(
        'policy',
        `its queue does not settle within ${maxLevels} ${M > 1 ? 'levels' : 'states'} (bound ${LIMITS.maxBandEntries} band entries): the policy is too close to instability`,
      );
    }
    const nu = solveChain(buildPolicyChain(p, proc, policy, table, n, lo, hi)).stationary;
    const massIn = (from: number, to: number): number => {
      let m = 0;
      for (let x = Math.max(0, from) * M; x < Math.min(to, n) * M; x++) m += nu[x];
      return m;
    };
    const top = massIn(n - reach, n);
    // Three windows of `reach` levels below the top two (which the cut distorts). The tail is
    // taken as geometric only where two successive window ratios agree: with several phases
    // the decay near the table is a mixture of modes, and the slowest one rules further out.
    const s0 = n - 3 * reach;
    const w0 = massIn(s0 - 2 * reach, s0 - reach);
    const w1 = massIn(s0 - reach, s0);
    const w2 = massIn(s0, s0 + reach);
    const perReach = w2 / w1;
    const steady = Math.abs(perReach - w1 / w0) <= STEADY_DECAY * perReach;
    const clean = s0 - 2 * reach >= tableLevels && w0 > 0 && w1 > 0 && w2 > 0 && perReach < 0.9 && steady;
    const above = clean ? massIn(s0, n) : 0;
    yield { stationary: nu, levels: n, top, ...(clean ? { decay: { s0, above, perReach, reach } } : {}) };
    // Not yet readable: just long enough to read the decay; readable but not geometric: double.
    let next = n < measurable ? measurable : 2 * n;
    if (clean) {
      // Where the top window's mass falls 10× below the target, plus the distorted top.
      const windows = Math.log(EXTENSION_TOP_MASS / (10 * Math.max(top, Number.MIN_VALUE))) / Math.log(perReach);
      next = Math.min(2 * n, Math.max(n + reach, Math.ceil(n + windows * reach * 1.1)));
    }
    if (n < maxLevels && next > maxLevels) next = maxLevels;
    n = next;
  }
}

/** The embedded chain of the policy over `levels` levels, the overflow past the last one kept there. */
function buildPolicyChain(
  p: ModelParams,
  proc: MmppProcess,
  policy: Policy,
  table: ArrivalTable,
  levels: number,
  loLevels: number,
  hiLevels: number,
): BandChain {
  const M = proc.phases;
  const Q = proc.generator;
  const ch = new BandChain(levels * M, (loLevels + 1) * M - 1, (hiLevels + 1) * M - 1);
  const costSlope = p.latencyWeight / proc.meanRate;
  const idle = p.powerWeight * p.idlePower;
  for (let s = 0; s < levels; s++) {
    for (let j = 0; j < M; j++) {
      const x = s * M + j;
      const a = actionAt(policy, s, j);
      if (a === 0) {
        const out = proc.rates[j] - Q[j * M + j];
        const y = 1 / out;
        if (proc.rates[j] > 0) ch.add(x, Math.min(s + 1, levels - 1) * M + j, proc.rates[j] / out);
        for (let jj = 0; jj < M; jj++) if (jj !== j) ch.add(x, s * M + jj, Q[j * M + jj] / out);
        ch.reward[x] = (costSlope * s + idle) * y;
        ch.time[x] = y;
        continue;
      }
      const L = table.length[a];
      const base = table.start[a] + j * L * M;
      const first = s - a + table.offset[a];
      for (let i = 0; i < L; i++) {
        const to = Math.min(first + i, levels - 1) * M;
        for (let jj = 0; jj < M; jj++) ch.add(x, to + jj, table.probs[base + i * M + jj]);
      }
      const l = p.meanService[a];
      ch.reward[x] = costSlope * (s * l + proc.meanRate * table.hold[a * M + j]) + p.powerWeight * p.busyPower[a] * l;
      ch.time[x] = l;
    }
  }
  return ch;
}
