import { checkBandFallback, evaluatedWithoutBand, GEOMETRIC_REFERENCE_CAP } from '../model/chainEntries.js';
import { modelBand, type CompiledModel } from '../model/compile.js';
import { BandChain, solveChain, type ChainFactor } from './chain.js';
import { hasGeometricLaws, solveGeometric } from './geometricChain.js';

/** A reference state at least this likely relative to the mode keeps the values accurate. */
const LIKELY = 1e-2;
/** Refinement rounds of the relative values (see solveChain): cheap, and they close bounds that rounding held open. */
const REFINE_ROUNDS = 1;

export interface ModelEvaluation {
  /** Average cost of the policy on the truncated, tail-corrected model. */
  readonly gain: number;
  /** SMDP relative values h (h = τ·h̃), h(0, 0) = 0, flat s-major. */
  readonly values: Float64Array;
  /** Most likely flat state under the policy: the reference to use for the next evaluation. */
  readonly mode: number;
  /** What the evaluation of a next policy on the same model can take over (see `previous`): the chain and its factor (none after the geometric reduction). */
  readonly reusable?: { readonly model: CompiledModel; readonly policy: Int32Array; readonly chain: BandChain; readonly factor: ChainFactor };
}

/**
 * Exact evaluation of a policy on the truncated model itself, tail extrapolation included
 * (the chain then has a few negative coefficients near S, which the reduction tolerates):
 * the evaluation step of policy iteration. The flat s-major order makes the chain banded
 * (modelBand), so one GTH reduction serves every number of phases.
 *
 * With `previous`, the evaluation of another policy on the same model, the rows of the states
 * where the two policies agree are the same: only the others are written again, into the
 * previous chain, and the reduction takes over the eliminations that involve only the shared
 * rows (chain.ts: the same result to the last bit). Policy iteration mostly changes the
 * actions at short queues, and eliminates from the top down: the long stretch above the
 * highest change is not eliminated again. `previous` is used up.
 *
 * One phase with geometric count laws (exponential service): the chain is reduced without its
 * band instead (geometricChain.ts, docs/model.md §3.5), so fast that nothing is reused.
 */
export function evaluateOnModel(model: CompiledModel, policy: Int32Array, ref?: number, previous?: ModelEvaluation, signal?: AbortSignal): ModelEvaluation {
  if (hasGeometricLaws(model, policy)) {
    // Geometric count laws: the same chain reduced without its band (geometricChain.ts).
    const ev = evaluateGeometric(model, policy, ref ?? 0, signal);
    if (ev) return ev;
  }
  const n = (model.S + 1) * model.M;
  const { lo, hi } = modelBand(model);
  // The model was bounded by what the geometric reduction holds (chainEntries.ts); the band may not fit.
  if (evaluatedWithoutBand(model)) checkBandFallback('solver.maxQueue', `S = ${model.S}: the geometric reduction met a zero pivot and its chain`, n, lo, hi);
  // The previous chain is rewritten where the actions differ ([bottom, top)), or a new one built.
  const shared = sharedWith(previous, model, policy);
  const ch = shared ? previous!.reusable!.chain : modelBandChain(model, n, lo, hi);
  const from = shared?.bottom ?? 0;
  const to = Math.max(from, shared?.top ?? n);
  ch.a.fill(0, from * ch.width, to * ch.width);
  for (let x = from; x < to; x++) writeRow(model, ch, x, policy[x]);
  // The values are accurate only when the reference is a likely state (see chain.ts); the
  // stationary distribution is accurate from any reference. So solve from the hint (a
  // previous, similar policy's mode) and solve again from this policy's mode if the hint
  // turns out to be rare here.
  let sol = solveChain(ch, { ref: ref ?? 0, refine: REFINE_ROUNDS, reuse: shared, signal });
  if (!(sol.stationary[sol.ref] >= LIKELY * sol.stationary[sol.mode])) {
    sol = solveChain(ch, { ref: sol.mode, refine: REFINE_ROUNDS, reuse: { from: sol.factor, top: 0 }, signal });
  }
  const h = sol.values;
  const h0 = h[0];
  for (let x = 0; x < n; x++) h[x] -= h0;
  return { gain: sol.gain, values: h, mode: sol.mode, reusable: { model, policy: policy.slice(), chain: ch, factor: sol.factor } };
}

/**
 * The geometric reduction with the reference rule above (from the hint, again from the mode if
 * the hint is rare); undefined where a pivot is not positive (the banded reduction then decides).
 */
function evaluateGeometric(model: CompiledModel, policy: Int32Array, hint: number, signal?: AbortSignal): ModelEvaluation | undefined {
  // The reference is capped (chainEntries.ts): the states below it are reduced as one explicit chain.
  const capped = (x: number) => Math.min(Math.max(x, 0), model.S, GEOMETRIC_REFERENCE_CAP);
  const ref = capped(hint);
  let sol = solveGeometric(model, policy, ref, REFINE_ROUNDS, signal);
  if (sol && capped(sol.mode) !== ref && !(sol.stationary[ref] >= LIKELY * sol.stationary[sol.mode])) sol = solveGeometric(model, policy, capped(sol.mode), REFINE_ROUNDS, signal);
  if (!sol) return undefined;
  const h = sol.values;
  const h0 = h[0];
  for (let x = 0; x < h.length; x++) h[x] -= h0;
  return { gain: sol.gain, values: h, mode: sol.mode };
}

/** A new chain for the model, its arrival-count laws copied into the chain's memory (for writeRow's kernel). */
function modelBandChain(model: CompiledModel, n: number, lo: number, hi: number): BandChain {
  const ch = new BandChain(n, lo, hi, model.M, model.pmf.length);
  ch.memory.extra.set(model.pmf);
  return ch;
}

/** Row x = (s, j) of the policy's chain under action `act`, its reward and its time; the row must be zero. */
function writeRow(model: CompiledModel, ch: BandChain, x: number, act: number): void {
  const { S, M, costSlope, rates, process, kappa, sojourn, pmfOffset, pmfStart, pmfLength } = model;
  const { tailFirstState, tailStart, tailCoef } = model;
  const Q = process.generator;
  const { a, width: W, lo } = ch;
  const s = Math.floor(x / M);
  const j = x - s * M;
  const row = x * W - x + lo; // a[row + z] = entry (x, z)
  if (act === 0) {
    // Probabilities as ratios of rates, so that one phase gives exactly 1 for an arrival.
    const out = rates[j] - Q[j * M + j];
    if (rates[j] > 0) a[row + x + M] += rates[j] / out;
    for (let jj = 0; jj < M; jj++) if (jj !== j) a[row + s * M + jj] += Q[j * M + jj] / out;
  } else {
    const L = pmfLength[act];
    const j0 = s - act + pmfOffset[act];
    const nIn = Math.min(L, S - j0 + 1);
    const pBase = pmfStart[act] + j * L * M;
    const { kernels, at } = ch.memory;
    kernels.addRun(at.a, row + j0 * M, at.extra, pBase, nIn * M);
    const first = tailFirstState[act];
    if (s >= first) {
      const r = ((tailStart[act] + s - first) * M + j) * M * 3;
      for (let jj = 0; jj < M; jj++) {
        a[row + S * M + jj] += tailCoef[r + jj * 3];
        a[row + (S - 1) * M + jj] += tailCoef[r + jj * 3 + 1];
        a[row + (S - 2) * M + jj] += tailCoef[r + jj * 3 + 2];
      }
    }
  }
  const y = sojourn[act * M + j];
  ch.reward[x] = (costSlope * s + kappa[act * M + j]) * y;
  ch.time[x] = y;
}

/** The rows a previous evaluation on the same model shares with this policy's chain: those of the states with the same action. */
function sharedWith(previous: ModelEvaluation | undefined, model: CompiledModel, policy: Int32Array) {
  const reusable = previous?.reusable;
  if (!reusable || reusable.model !== model) return undefined;
  const old = reusable.policy;
  let bottom = 0;
  while (bottom < policy.length && old[bottom] === policy[bottom]) bottom++;
  let top = policy.length;
  while (top > bottom && old[top - 1] === policy[top - 1]) top--;
  // The same policy: every row is shared.
  return { from: reusable.factor, bottom, top: bottom === policy.length ? 0 : top };
}
