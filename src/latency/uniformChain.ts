import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import { actionAt, type Policy } from '../policy/policy.js';
import { behindCap } from './clamp.js';
import { grown } from './grown.js';
import type { UniformEntry } from './uniformEntry.js';

/**
 * The tagged request's remaining time, for exponential service T_b ~ Exp(μ_b), as the absorption
 * time of a CTMC (docs/model.md §9.2), uniformized at rate Λ:
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
 *
 * The chain is explored lazily: a state gets an id when some mass can reach it and its moves when
 * mass worth stepping sits on it (uniformized.ts). Most states of the whole chain (deep queues,
 * long runs of arrivals) hold less than 1e-20 at every step; building them all cost more than
 * stepping the rest (5e5 states and 1e6 transitions on the §6 exponential row).
 */
const DENSE_KEYS = 1 << 24;

export class LazyChain {
  /** Uniformization rate Λ: a bound on every state's outflow, known before any state is built. */
  readonly rate: number;
  readonly mCap: number;
  /** States with an id so far (final ones included). */
  size = 0;
  /** 1 − outflow/Λ, set when the state is expanded. */
  stay = new Float64Array(1024);
  /** Moves of an expanded state: to/prob[begin[i]..end[i]); begin is −1 until expanded. */
  begin = new Int32Array(1024).fill(-1);
  end = new Int32Array(1024);
  to = new Int32Array(4096);
  prob = new Float64Array(4096);
  private edges = 0;
  private kOf = new Int32Array(1024);
  private mOf = new Int32Array(1024);
  /** 0 waiting, b serving a batch of b, −a final a. */
  private modeOf = new Int32Array(1024);
  private phaseOf = new Int32Array(1024);
  /** Ids by (k, m, mode, phase): a dense table while it stays small (the usual case), a Map past that. */
  private readonly dense: Int32Array | undefined;
  private readonly sparse: Map<number, number> | undefined;
  private readonly finals: Int32Array;
  private readonly act: Int32Array;
  private readonly mu: Float64Array;
  private readonly M: number;
  private readonly B: number;
  private readonly lam: Float64Array;
  private readonly Q: Float64Array;

  constructor(model: CompiledModel, policy: Policy, entry: UniformEntry, private readonly maxStates = 5_000_000) {
    const { M, B } = model;
    this.M = M;
    this.B = B;
    this.lam = model.process.rates;
    this.Q = model.process.generator;
    this.mu = new Float64Array(B + 1);
    for (let b = 1; b <= B; b++) this.mu[b] = 1 / model.params.meanService[b];
    this.mCap = behindCap(policy);
    this.finals = new Int32Array(B + 1).fill(-1);
    // Actions on every level an epoch can reach (beyond, actionAt serves min(s, b∞) anyway).
    const top = entry.maxAhead + this.mCap + 2;
    this.act = new Int32Array(top * M);
    let fastest = this.mu[policy.tailBatch];
    for (let s = 0; s < top; s++) {
      for (let j = 0; j < M; j++) {
        const a = (this.act[s * M + j] = actionAt(policy, s, j));
        if (a > 0) fastest = Math.max(fastest, this.mu[a]);
      }
    }
    // Outflows: waiting λ_j + q_j, serving b λ_j + μ_b + q_j, final a μ_a, clamped μ_b.
    let arrivals = 0;
    for (let j = 0; j < M; j++) {
      let q = 0;
      for (let jj = 0; jj < M; jj++) if (jj !== j) q += this.Q[j * M + jj];
      arrivals = Math.max(arrivals, this.lam[j] + q);
    }
    this.rate = arrivals + fastest;
    const keys = (entry.maxAhead + 1) * (this.mCap + 1) * (B + 1) * M;
    if (keys <= DENSE_KEYS) this.dense = new Int32Array(keys).fill(-1);
    else this.sparse = new Map();
  }

  /** The state the entry point (k ahead, phase j, idle or serving a batch) starts from. */
  entryState(k: number, j: number, serving: number): number {
    return serving === 0 ? this.epoch(k, 0, j) : this.state(k, 0, serving, j);
  }

  isExpanded(i: number): boolean {
    return this.begin[i] >= 0;
  }

  /** Builds the moves of state i (and ids for their targets). */
  expand(i: number): void {
    const k = this.kOf[i];
    const m = this.mOf[i];
    const md = this.modeOf[i];
    const j = this.phaseOf[i];
    const first = this.edges;
    if (md < 0) {
      this.close(i, first, this.mu[-md]); // to absorption: no move
      return;
    }
    if (m === this.mCap) {
      // Clamped: only the completion matters (waiting cannot occur here).
      this.edge(this.epoch(k, m, 0), this.mu[md]);
    } else {
      const M = this.M;
      if (md === 0) this.edge(this.epoch(k, m + 1, j), this.lam[j]);
      else {
        this.edge(this.state(k, m + 1, md, j), this.lam[j]);
        this.edge(this.epoch(k, m, j), this.mu[md]);
      }
      for (let jj = 0; jj < M; jj++) {
        if (jj === j) continue;
        this.edge(md === 0 ? this.epoch(k, m, jj) : this.state(k, m, md, jj), this.Q[j * M + jj]);
      }
    }
    let out = 0;
    for (let e = first; e < this.edges; e++) out += this.prob[e];
    for (let e = first; e < this.edges; e++) this.prob[e] /= this.rate;
    this.close(i, first, out);
  }

  private close(i: number, first: number, out: number): void {
    this.begin[i] = first;
    this.end[i] = this.edges;
    this.stay[i] = 1 - out / this.rate;
  }

  /** A move at rate r (stored as a rate until the state's moves are complete). */
  private edge(target: number, r: number): void {
    if (r <= 0) return;
    if (this.edges === this.to.length) {
      this.to = grown(this.to, this.to.length * 2);
      this.prob = grown(this.prob, this.prob.length * 2);
    }
    this.to[this.edges] = target;
    this.prob[this.edges++] = r;
  }

  private epoch(k: number, m: number, j: number): number {
    const a = this.act[(k + 1 + m) * this.M + j];
    if (a === 0) {
      if (m === this.mCap) throw new Error('uniformChain: a wait past the clamp (the policy is not pure there)');
      return this.state(k, m, 0, j);
    }
    return a > k ? this.finalState(a) : this.state(k - a, m, a, j);
  }

  private state(k: number, m: number, md: number, j: number): number {
    const jj = m === this.mCap ? 0 : j;
    const key = ((k * (this.mCap + 1) + m) * (this.B + 1) + md) * this.M + jj;
    const id = this.dense ? this.dense[key] : (this.sparse!.get(key) ?? -1);
    if (id >= 0) return id;
    const fresh = this.add(k, m, md, jj);
    if (this.dense) this.dense[key] = fresh;
    else this.sparse!.set(key, fresh);
    return fresh;
  }

  private finalState(a: number): number {
    if (this.finals[a] < 0) this.finals[a] = this.add(0, 0, -a, 0);
    return this.finals[a];
  }

  private add(k: number, m: number, md: number, j: number): number {
    const id = this.size++;
    if (id >= this.maxStates) throw new LimitError('latency', `the uniformized route would take too long here (its chain passes ${this.maxStates} states)`);
    if (id === this.kOf.length) {
      const n = 2 * id;
      this.kOf = grown(this.kOf, n);
      this.mOf = grown(this.mOf, n);
      this.modeOf = grown(this.modeOf, n);
      this.phaseOf = grown(this.phaseOf, n);
      this.stay = grown(this.stay, n);
      this.begin = grown(this.begin, n, -1);
      this.end = grown(this.end, n);
    }
    this.kOf[id] = k;
    this.mOf[id] = m;
    this.modeOf[id] = md;
    this.phaseOf[id] = j;
    return id;
  }
}
