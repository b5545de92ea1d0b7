import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import { actionAt, type Policy } from '../policy/policy.js';
import { behindCap } from './clamp.js';
import type { UniformEntry } from './uniformEntry.js';

/**
 * The tagged request's remaining time, for exponential service T_b ~ Exp(μ_b), as the absorption
 * time of a finite CTMC (docs/model.md §9), uniformized at rate Λ:
 *   (k, m, waiting, j)  server idle at level s = k + 1 + m with π(s, j) = 0; k ahead, m behind;
 *   (k, m, serving b, j) a batch of b without the tagged request in service, k more ahead;
 *   final a              the batch of a holding the tagged request is in service (ends R at μ_a).
 * Events: an arrival (λ_j) makes m + 1 (while idle that is an epoch at level s + 1); a completion
 * (μ_b) is an epoch at s = k + 1 + m; a phase change (Q_jj') while idle is an epoch at (s, j'),
 * while serving it decides nothing. At an epoch, a = π(s, j): 0 waits, a > k is final a, else
 * serving a with k − a ahead.
 *
 * Clamping m. Let L be the smallest level from which every phase's policy serves min(s, b∞)
 * (b∞ = tailBatch) and mCap = max(L, b∞) − 1. Every epoch has s = k + 1 + m ≥ m + 1, and m never
 * falls; so once m ≥ mCap every later epoch is at s ≥ max(L, b∞) and serves exactly b∞, whatever
 * m and j are: no more waiting, and the service rates do not depend on the phase. The remaining
 * time is then a function of (k, mode) alone, so all m ≥ mCap are one state m = mCap, and its
 * phase is dropped (j = 0), arrivals there being self-loops.
 */
export interface AbsorbingChain {
  /** Transient states (the final ones included). */
  readonly n: number;
  /** Uniformization rate Λ: the largest outflow of any state. */
  readonly rate: number;
  /** Probability of staying put in one uniformized step, 1 − outflow/Λ. */
  readonly stay: Float64Array;
  /** Moves to other transient states, grouped by source (CSR): start[i]..start[i+1]. */
  readonly start: Int32Array;
  readonly to: Int32Array;
  readonly prob: Float64Array;
  /** The entry law on the states. */
  readonly initial: Float64Array;
  readonly mCap: number;
}

const WAIT = 0;
const DENSE_KEYS = 1 << 24;

export function buildAbsorbingChain(model: CompiledModel, policy: Policy, entry: UniformEntry, maxStates = Infinity): AbsorbingChain {
  const { M, B } = model;
  const lam = model.process.rates;
  const Q = model.process.generator;
  const mu = new Float64Array(B + 1);
  for (let b = 1; b <= B; b++) mu[b] = 1 / model.params.meanService[b];
  const bInf = policy.tailBatch;
  const mCap = behindCap(policy);
  // Actions on every level an epoch can reach (beyond, actionAt serves min(s, b∞) anyway).
  const top = entry.maxAhead + mCap + 2;
  const act = new Int32Array(top * M);
  for (let s = 0; s < top; s++) for (let j = 0; j < M; j++) act[s * M + j] = actionAt(policy, s, j);

  // A dense table of ids while it stays small (the usual case), a Map past that.
  const keys = (entry.maxAhead + 1) * (mCap + 1) * (B + 1) * M;
  const dense = keys <= DENSE_KEYS ? new Int32Array(keys).fill(-1) : undefined;
  const sparse = dense ? undefined : new Map<number, number>();
  const finalIndex = new Int32Array(B + 1).fill(-1);
  // Per state: k, m, mode (0 waiting, b serving, −a final a), j.
  const K: number[] = [];
  const Mb: number[] = [];
  const mode: number[] = [];
  const ph: number[] = [];
  const state = (k: number, m: number, md: number, j: number): number => {
    const jj = m === mCap ? 0 : j;
    const key = ((k * (mCap + 1) + m) * (B + 1) + md) * M + jj;
    let id = dense ? dense[key] : (sparse!.get(key) ?? -1);
    if (id < 0) {
      id = K.length;
      // refused while it is built: a chain past the bound would not be stepped anyway
      if (id >= maxStates) throw new LimitError('latency', `the uniformized route would take too long here (its chain passes ${maxStates} states)`);
      if (dense) dense[key] = id;
      else sparse!.set(key, id);
      K.push(k);
      Mb.push(m);
      mode.push(md);
      ph.push(jj);
    }
    return id;
  };
  const finalState = (a: number): number => {
    if (finalIndex[a] < 0) {
      finalIndex[a] = K.length;
      K.push(0);
      Mb.push(0);
      mode.push(-a);
      ph.push(0);
    }
    return finalIndex[a];
  };
  const epoch = (k: number, m: number, j: number): number => {
    const a = act[(k + 1 + m) * M + j];
    if (a === WAIT) {
      if (m === mCap) throw new Error('uniformChain: a wait past the clamp (the policy is not pure there)');
      return state(k, m, WAIT, j);
    }
    return a > k ? finalState(a) : state(k - a, m, a, j);
  };

  const init: number[] = [];
  const initMass: number[] = [];
  for (const pt of entry.points) {
    init.push(pt.serving === 0 ? epoch(pt.k, 0, pt.j) : state(pt.k, 0, pt.serving, pt.j));
    initMass.push(pt.mass);
  }

  const start: number[] = [0];
  const to: number[] = [];
  const rate: number[] = [];
  const out: number[] = [];
  let Lambda = 0;
  const edge = (target: number, r: number): void => {
    if (r <= 0) return;
    to.push(target);
    rate.push(r);
  };
  // States are numbered as found, so processing them in order visits every reachable one once.
  for (let id = 0; id < K.length; id++) {
    const k = K[id];
    const m = Mb[id];
    const md = mode[id];
    const j = ph[id];
    const first = to.length;
    if (md < 0) {
      out.push(mu[-md]); // to absorption: no edge
    } else if (m === mCap) {
      // Clamped: only the completion matters (waiting cannot occur here).
      edge(epoch(k, m, 0), mu[md]);
    } else {
      const next = m + 1;
      if (md === WAIT) edge(epoch(k, next, j), lam[j]);
      else {
        edge(state(k, next, md, j), lam[j]);
        edge(epoch(k, m, j), mu[md]);
      }
      for (let jj = 0; jj < M; jj++) {
        if (jj === j) continue;
        edge(md === WAIT ? epoch(k, m, jj) : state(k, m, md, jj), Q[j * M + jj]);
      }
    }
    if (md >= 0) {
      let sum = 0;
      for (let e = first; e < to.length; e++) sum += rate[e];
      out.push(sum);
    }
    Lambda = Math.max(Lambda, out[id]);
    start.push(to.length);
  }
  const n = K.length;
  // Renumber by (k, mode, m, j): an arrival then moves to a neighbouring index and a completion to
  // a nearby block, so a step's scattered writes stay in cache (several times faster than BFS order).
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const rank = (i: number): number => ((K[i] * (B + 1) + (mode[i] < 0 ? 0 : mode[i] + 1)) * (mCap + 1) + Mb[i]) * M + ph[i] - (mode[i] < 0 ? B + 1 + mode[i] : 0);
  const ranks = Float64Array.from({ length: n }, (_, i) => rank(i));
  order.sort((x, y) => ranks[x] - ranks[y]);
  const renum = new Int32Array(n);
  for (let i = 0; i < n; i++) renum[order[i]] = i;
  const stay = new Float64Array(n);
  const begin = new Int32Array(n + 1);
  const target = new Int32Array(to.length);
  const prob = new Float64Array(to.length);
  let e = 0;
  for (let i = 0; i < n; i++) {
    const old = order[i];
    stay[i] = 1 - out[old] / Lambda;
    for (let f = start[old]; f < start[old + 1]; f++, e++) {
      target[e] = renum[to[f]];
      prob[e] = rate[f] / Lambda;
    }
    begin[i + 1] = e;
  }
  const initial = new Float64Array(n);
  for (let i = 0; i < init.length; i++) initial[renum[init[i]]] += initMass[i];
  return { n, rate: Lambda, stay, start: begin, to: target, prob, initial, mCap };
}
