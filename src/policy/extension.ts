import type { ArrivalTable } from '../model/arrivalTable.js';
import { LimitError, throwIfAborted } from '../model/errors.js';
import { checkBandFallback, evaluatedWithoutBand, geometricStatesWithin } from '../model/chainEntries.js';
import { LIMITS } from '../model/limits.js';
import { batchDecay } from '../model/queueEstimate.js';
import type { MmppProcess } from '../model/mmpp/process.js';
import type { ModelParams } from '../model/scenario.js';
import { solveChain } from './chain.js';
import { actionAt, levelsOf, type Policy } from './policy.js';
import { extendedRows, geometricStationary } from './geometricChain.js';
import { buildStateChain, stateSums, type Branches, type ChainShape, type StateSums } from './stateChain.js';

/** Mass the extension's top may hold before it is grown (docs/model.md §5 asks < 1e-12 in all). */
export const EXTENSION_TOP_MASS = 1e-13;
/** Two successive per-window decay ratios within this relative distance count as one geometric decay. */
const STEADY_DECAY = 0.05;
/**
 * The growth refuses at once when the levels its decay asks for pass the bound by this factor
 * (the decay's estimate of them errs by the cut's distortion of the top window, a few per cent).
 */
const UNSETTLED_MARGIN = 1.5;

export interface ExtendedSolution {
  /** Stationary distribution, flat s-major over `levels` × M. */
  readonly stationary: Float64Array;
  readonly levels: number;
  /** Per-state sums of the extended chain, for the figures. */
  readonly sums: StateSums;
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
 * ν of the policy's chain over `shape.levels` levels and its per-state sums. One phase with
 * geometric count laws: by the reduction of geometricChain.ts, which never builds the band.
 * Otherwise the banded reduction, eliminated from the bottom up: past the table the copies of
 * the sweep start within a few hundred levels of it (from the cut at the top they take longer),
 * and ν is accurate from any reference.
 */
function stationaryOfExtension(p: ModelParams, proc: MmppProcess, policy: Policy, table: ArrivalTable, shape: ChainShape, signal?: AbortSignal): { nu: Float64Array; sums: StateSums } {
  const branches: Branches = (s, j, _m, out) => {
    out.action[0] = actionAt(policy, s, j);
    out.prob[0] = 1;
    out.mode[0] = 0;
    return 1;
  };
  if (evaluatedWithoutBand({ M: proc.phases, cascade: table.cascade })) {
    const act = new Int32Array(shape.levels);
    for (let s = 0; s < act.length; s++) act[s] = actionAt(policy, s, 0);
    const nu = geometricStationary(extendedRows(table.cascade!, act, shape.loLevels), signal);
    if (nu) return { nu, sums: stateSums(p, proc, table, shape, branches) };
    // A zero pivot the reduction could not step round: the band, if it fits (the levels were bounded by the reduction's charge).
    checkBandFallback('policy', `its chain over ${shape.levels} states`, shape.levels, shape.loLevels, shape.hiLevels);
  }
  const { chain, sums } = buildStateChain(p, proc, table, shape, branches);
  return { nu: solveChain(chain, { ref: chain.n - 1, stationaryOnly: true, signal }).stationary, sums };
}

/**
 * The most levels the extension may have within LIMITS.maxBandEntries (chainEntries.ts): the
 * geometric reduction's rows with one phase and exponential service (its classes: the batch
 * sizes the policy uses; its reference at most the cap, where a zero pivot moves it), else the
 * band, (reach + 1)·M entries per state.
 */
function levelsWithinBound(M: number, table: ArrivalTable, policy: Policy, lo: number, reach: number): number {
  if (!evaluatedWithoutBand({ M, cascade: table.cascade })) return Math.floor(LIMITS.maxBandEntries / ((reach + 1) * M * M));
  // The classes: the sizes in the table and those of min(s, tailBatch) past it.
  const used = new Set<number>();
  for (const a of policy.actions) if (a > 0) used.add(a);
  for (let s = Math.max(1, levelsOf(policy)); ; s++) {
    used.add(Math.min(s, policy.tailBatch));
    if (s >= policy.tailBatch) break;
  }
  return geometricStatesWithin(LIMITS.maxBandEntries, lo, used.size, table.offset.length - 1);
}

/**
 * The extension's band: lo the largest batch (every size up to the tail batch is served past the
 * table), hi the largest jump up of any of them, reach = lo + hi (a window of the tail checks).
 */
function extensionReach(table: ArrivalTable, policy: Policy): { lo: number; hi: number; reach: number } {
  let lo = 1;
  let hi = 1;
  const usedBatch = (b: number): void => {
    lo = Math.max(lo, b);
    hi = Math.max(hi, table.offset[b] + table.length[b] - 1 - b);
  };
  for (let x = 0; x < policy.actions.length; x++) if (policy.actions[x] > 0) usedBatch(policy.actions[x]);
  for (let b = 1; b <= policy.tailBatch; b++) usedBatch(b);
  return { lo, hi, reach: lo + hi };
}

/**
 * The first level from which the chain is level-homogeneous: every phase serves the tail batch
 * there and at every level above (past the table the policy serves min(s, tailBatch)). Above it
 * the tail decays by the same law wherever the table ends, so the windows that read the decay
 * may lie inside the table (a solved policy serves B from its control limit on).
 */
export function homogeneousFrom(policy: Policy): number {
  const M = policy.phases ?? 1;
  const B = policy.tailBatch;
  let h = levelsOf(policy);
  const servesTail = (s: number): boolean => {
    for (let j = 0; j < M; j++) if (actionAt(policy, s, j) !== B) return false;
    return true;
  };
  while (h > 0 && servesTail(h - 1)) h--;
  return h;
}

/**
 * The first extension's levels. One phase: the tail is geometric right past the table, and two
 * windows read its decay. Several phases mix decay modes there (the slowest one rules further
 * out): a third window must agree, so the first extension is made just long enough to hold the
 * three (a shorter one first rarely held the mass down, and cost a solve of its own).
 */
function firstExtensionLevels(M: number, tableLevels: number, minLevels: number, reach: number): number {
  const measurable = Math.max(tableLevels, minLevels) + 5 * reach;
  return Math.max(M > 1 ? measurable : tableLevels + 2 * reach, minLevels, 64);
}

/**
 * The mass past the table that an evaluation's first extension is sized for: a solved policy's
 * (the automatic search for S grows S until the top B levels of its table hold less than 1e-9,
 * solve/maxQueue.ts TAIL_MASS_BOUND). A heavier tail grows the extension as before.
 */
const PAST_TABLE_MASS = 1e-9;

/**
 * Levels where a tail of PAST_TABLE_MASS past the table (or past minLevels), decaying by e^(−θ) a
 * level, leaves the top window 10× under EXTENSION_TOP_MASS, the distorted top window included:
 * with a slow decay (gamma service near capacity: e^(−θ·reach) ≈ 2e-3) two windows past the table
 * fall short and cost a second solve, where the levels beyond them are mostly copies (chainSweep.ts).
 * 0 when there is no decay (the load is not below the tail batch's capacity).
 */
function decayedFirstLevels(theta: number, tableLevels: number, minLevels: number, reach: number): number {
  if (!(theta > 0)) return 0;
  return Math.max(tableLevels, minLevels) + reach + Math.ceil(Math.log((10 * PAST_TABLE_MASS) / EXTENSION_TOP_MASS) / theta);
}

/**
 * A sizing's first levels (one phase: several start with the windows their read needs). The read
 * is either the top under the quantile's mass or a clean decay, which needs four windows past the
 * table: where the decay says the first extension's top (about e^(−θ·reach) of the whole mass,
 * the table being short) cannot be under the mass, it starts at the smaller of the levels that
 * put it there and those four windows, as the doubling after a first solve would have.
 */
function sizingFirstLevels(M: number, theta: number, tableLevels: number, reach: number, mass: number, first: number): number {
  if (M > 1 || !(theta > 0)) return first;
  const underMass = tableLevels + reach + Math.ceil(Math.log(10 / mass) / theta);
  return underMass <= first ? first : Math.min(underMass, 2 * first);
}

function unsettled(M: number, maxLevels: number, needed: number): LimitError {
  return new LimitError(
    'policy',
    `its queue does not settle within ${maxLevels} ${M > 1 ? 'levels' : 'states'} (the bound maxBandEntries = ${LIMITS.maxBandEntries}): the policy is too close to instability`,
    { bound: 'maxBandEntries', excess: Math.max(needed, maxLevels + 1) / maxLevels },
  );
}

/**
 * The error the exact evaluation of any policy solved at S (a table of S + 1 levels, evaluated
 * with minLevels S + 1) is bound to throw, because its first extension is already past the bound;
 * undefined when that first extension fits. Only where the evaluation goes by the band (several
 * phases, or service other than exponential), whose bound does not depend on the policy: the
 * automatic search for S asks before it compiles and solves at S (seconds, near capacity, that
 * could only end in this refusal).
 */
export function evaluationPastBound(proc: MmppProcess, table: ArrivalTable, S: number, tailBatch: number): LimitError | undefined {
  const M = proc.phases;
  if (evaluatedWithoutBand({ M, cascade: table.cascade })) return undefined;
  const policy: Policy = { phases: M, actions: new Int32Array(0), tailBatch };
  const { lo, reach } = extensionReach(table, policy);
  const maxLevels = levelsWithinBound(M, table, policy, lo, reach);
  const first = firstExtensionLevels(M, S + 1, S + 1, reach);
  return first > maxLevels ? unsettled(M, maxLevels, first) : undefined;
}

/**
 * Solves the policy's chain extended past its table by serving min(s, tailBatch), growing the
 * extension until the caller stops asking. The first size is where the exact decay puts a solved
 * policy's tail under the target (decayedFirstLevels; for a sizing, sizingFirstLevels). Each growth jumps to where the measured decay of
 * the tail puts the top mass below the target (at most ×2), or where the homogeneous tail's
 * exact decay puts it when the windows show no clean one (doubling instead where `sizing`), so a
 * deep queue costs one or two solves instead of a ladder of doublings; and, unless `sizing`,
 * refuses (LimitError, bound maxBandEntries) once the levels that decay asks for pass the bound
 * by UNSETTLED_MARGIN, without the solve at the bound that could only confirm it.
 */
export function* extendedSolutions(
  p: ModelParams,
  proc: MmppProcess,
  policy: Policy,
  table: ArrivalTable,
  opts: { readonly signal?: AbortSignal; readonly minLevels?: number; readonly sizing?: number },
): Generator<ExtendedSolution> {
  const M = proc.phases;
  const { lo, hi, reach } = extensionReach(table, policy);
  const tableLevels = levelsOf(policy);
  const maxLevels = levelsWithinBound(M, table, policy, lo, reach);
  const mixedModes = M > 1;
  const from = homogeneousFrom(policy);
  // An evaluation needs the top below EXTENSION_TOP_MASS; a caller sizing a truncation (`sizing`:
  // evaluate.ts tailQuantile, the quantile's mass) reads a quantile off the first clean decay, past the bound too.
  const evaluating = opts.sizing === undefined;
  // The homogeneous tail's exact decay, e^(−θ) a level (model/queueEstimate.ts batchDecay).
  const theta = batchDecay(p, policy.tailBatch);
  const first = firstExtensionLevels(M, tableLevels, opts.minLevels ?? 0, reach);
  const sized = opts.sizing === undefined ? decayedFirstLevels(theta, tableLevels, opts.minLevels ?? 0, reach) : sizingFirstLevels(M, theta, tableLevels, reach, opts.sizing, first);
  let n = Math.max(first, Math.min(maxLevels, sized));
  // The levels known to be needed: the first size, more than one whose top held too much, or where a clean decay puts the end.
  let needed = n;
  for (;;) {
    throwIfAborted(opts.signal);
    if (n > maxLevels) throw unsettled(M, maxLevels, needed);
    const { nu, sums } = stationaryOfExtension(p, proc, policy, table, { levels: n, modes: 1, loLevels: lo, hiLevels: hi }, opts.signal);
    const massIn = (from: number, to: number): number => {
      let m = 0;
      for (let x = Math.max(0, from) * M; x < Math.min(to, n) * M; x++) m += nu[x];
      return m;
    };
    const top = massIn(n - reach, n);
    // Windows of `reach` levels below the top two (which the cut distorts).
    const s0 = n - 3 * reach;
    const w0 = massIn(s0 - 2 * reach, s0 - reach);
    const w1 = massIn(s0 - reach, s0);
    const w2 = massIn(s0, s0 + reach);
    const perReach = w2 / w1;
    // Windows within the table (above `from`) or over mixed modes must show one steady decay over three.
    const steady = (!mixedModes && s0 - reach >= tableLevels) || (s0 - 2 * reach >= from && w0 > 0 && Math.abs(perReach - w1 / w0) <= STEADY_DECAY * perReach);
    const clean = s0 - reach >= from && w1 > 0 && w2 > 0 && perReach < 0.9 && steady;
    const above = clean ? massIn(s0, n) : 0;
    yield { stationary: nu, levels: n, sums, top, ...(clean ? { decay: { s0, above, perReach, reach } } : {}) };
    let next = 2 * n;
    needed = n + 1;
    if (clean) {
      // Where the top window's mass falls 10× below the target, plus the distorted top.
      const windows = Math.log(EXTENSION_TOP_MASS / (10 * Math.max(top, Number.MIN_VALUE))) / Math.log(perReach);
      needed = Math.max(n + reach, Math.ceil(n + windows * reach * 1.1));
      next = Math.min(2 * n, needed);
    } else if (evaluating && theta > 0) {
      // No decay read off the windows (mixed phases, or one too slow for three windows to tell):
      // the homogeneous tail's own, no faster than the modes the windows mix, puts the same end
      // at once instead of by doublings.
      const more = Math.log((10 * Math.max(top, Number.MIN_VALUE)) / EXTENSION_TOP_MASS) / theta;
      needed = next = Math.max(n + reach, Math.ceil(n + more * 1.1));
    }
    // Far past the bound, a solve at the bound could not hold the top down either.
    if (evaluating && needed > UNSETTLED_MARGIN * maxLevels) throw unsettled(M, maxLevels, needed);
    if (n < maxLevels && next > maxLevels) next = maxLevels;
    n = next;
  }
}
