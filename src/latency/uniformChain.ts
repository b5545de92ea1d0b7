import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import { actionAt, type Policy } from '../policy/policy.js';
import { behindCap } from './clamp.js';
import { fixedMemory, kernelsOn, Layout, type Kernels } from '../wasm/kernels.js';
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
 * phase is dropped (j = 0), arrivals there being self-loops. It is pure earlier still: with
 * r = k mod b∞, every later epoch has k″ ≡ r ahead (batches of b∞ until the request's own) and
 * level ≥ r + 1 + m, so from m ≥ mCap − r on it serves b∞ at every epoch and the time depends on
 * (⌊k/b∞⌋, mode) alone: those states are one, keyed (⌊k/b∞⌋·b∞, mCap).
 *
 * The chain is explored lazily: a state gets an id when some mass can reach it and its moves when
 * mass worth stepping sits on it (uniformized.ts). Most states of the whole chain (deep queues,
 * long runs of arrivals) hold less than 1e-20 at every step; building them all cost more than
 * stepping the rest (5e5 states and 1e6 transitions on the §6 exponential row).
 *
 * Its records and the step's vectors live in one wasm memory, sized once for every state the
 * chain can have (untouched parts of it cost nothing, so no array is grown or copied), where
 * wasm/uniform.ts steps them: the step is memory bound, and runs some 2× faster there than in
 * JavaScript.
 */
const DENSE_KEYS = 1 << 24;

/**
 * Bound on the chain's ids (its entries: the B + 1 finals and a block of W for every line reached),
 * which sizes the wasm memory (each id holds a record and its entries of the step's vectors): past
 * it the route is refused.
 */
export const MAX_CHAIN_IDS = 5_000_000;

/** Kinds of state in the rate table: idle or serving with m below the clamp, clamped, final. */
const FREE = 0;
const CLAMPED = 1;
const FINAL = 2;

export class LazyChain {
  /** Uniformization rate Λ: a bound on every state's outflow, known before any state is built. */
  readonly rate: number;
  readonly mCap: number;
  /** Ids handed out so far: the finals' and every line's block. */
  size: number;
  /** Most ids the memory holds: the finals and a block for every line, or maxIds. */
  readonly capacity: number;
  /**
   * Moves per state: the slots arrival, completion, then the M − 1 phase changes.
   * A state's record rec[i·stride] is its row in `table` plus 1 (0 until expanded), followed by
   * its slots' targets plus 1 (0: none): one read per state where separate arrays took five
   * (the step is memory bound), and a fresh memory's zeros mean "none" with no fill.
   */
  readonly slots: number;
  readonly stride: number;
  readonly rec: Int32Array;
  /**
   * Per row: the stay probability 1 − outflow/Λ, then each slot's probability. A row depends only
   * on (kind, batch, phase), so there are a few hundred whatever the number of states.
   */
  readonly table: Float64Array;
  /** The step's vectors (mass now and next, by state id; the lists of states holding it), zero when the chain is new. */
  readonly u: Float64Array;
  readonly v: Float64Array;
  readonly cur: Int32Array;
  readonly next: Int32Array;
  /** The states a step found worth stepping next and not expanded yet. */
  readonly todo: Int32Array;
  readonly kernels: Kernels;
  /** Byte addresses of the arrays above, for the kernels. */
  readonly at: { readonly rec: number; readonly table: number; readonly u: number; readonly v: number; readonly cur: number; readonly next: number; readonly todo: number };
  /**
   * Ids by blocks, one per line (k, mode), mode 0 waiting and b serving a batch of b: state
   * (k, m, mode, j) is id B + 1 + β·W + m·M + j where β is the line's block (the lines get theirs
   * as they are reached) and W = (mCap + 1)·M, and id a ≤ B is final a. The moves along a line
   * (arrivals m → m + 1, phase changes) land on neighbouring ids, so that a step reads the
   * memory mostly in order (the step is memory bound: ids in the order they were reached took
   * 1.6× as long on the §6 exponential row).
   */
  private readonly W: number;
  /** Each block's line k·(B + 1) + mode. */
  private readonly lineOf: Int32Array;
  /** Blocks plus 1 (0: none yet) by line: a dense table while it stays small (the usual case), a Map of blocks past that. */
  private readonly dense: Int32Array | undefined;
  private readonly sparse: Map<number, number> | undefined;
  private readonly act: Int32Array;
  private readonly mu: Float64Array;
  private readonly M: number;
  private readonly B: number;
  /** b∞, the batch every level past the clamp serves. */
  private readonly bt: number;
  private readonly lam: Float64Array;
  private readonly Q: Float64Array;

  constructor(model: CompiledModel, policy: Policy, entry: UniformEntry, private readonly maxIds = MAX_CHAIN_IDS) {
    const { M, B } = model;
    this.M = M;
    this.B = B;
    this.bt = policy.tailBatch;
    this.lam = model.process.rates;
    this.Q = model.process.generator;
    this.mu = new Float64Array(B + 1);
    for (let b = 1; b <= B; b++) this.mu[b] = 1 / model.params.meanService[b];
    this.mCap = behindCap(policy);
    this.slots = M + 1;
    this.stride = M + 2;
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
    const table = this.rateTable();
    this.W = (this.mCap + 1) * M;
    const lines = (entry.maxAhead + 1) * (B + 1);
    const denseLines = lines <= DENSE_KEYS;
    const n = (this.capacity = Math.min(maxIds, B + 1 + lines * this.W));
    this.size = B + 1;
    const lay = new Layout();
    const at = { rec: lay.i32(n * this.stride), table: lay.f64(table.length), u: lay.f64(n), v: lay.f64(n), cur: lay.i32(n), next: lay.i32(n), todo: lay.i32(n) };
    const lineAt = lay.i32(Math.ceil(n / this.W));
    const denseAt = lay.i32(denseLines ? lines : 0);
    const memory = fixedMemory(lay.bytes);
    const buf = memory.buffer;
    this.kernels = kernelsOn(memory);
    this.at = at;
    this.rec = new Int32Array(buf, at.rec, n * this.stride);
    this.table = new Float64Array(buf, at.table, table.length);
    this.table.set(table);
    this.u = new Float64Array(buf, at.u, n);
    this.v = new Float64Array(buf, at.v, n);
    this.cur = new Int32Array(buf, at.cur, n);
    this.next = new Int32Array(buf, at.next, n);
    this.todo = new Int32Array(buf, at.todo, n);
    this.lineOf = new Int32Array(buf, lineAt, Math.ceil(n / this.W));
    if (denseLines) this.dense = new Int32Array(buf, denseAt, lines);
    else this.sparse = new Map();
  }

  /** Row of (kind, batch b or final a, phase j) in the rate table. */
  private row(kind: number, b: number, j: number): number {
    return (kind * (this.B + 1) + b) * this.M + j;
  }

  /** Probabilities per (kind, batch, phase): stay, then the slots (arrival, completion, phase changes in order of j' ≠ j). */
  private rateTable(): Float64Array {
    const { M, B, slots } = this;
    const w = slots + 1;
    const t = new Float64Array(3 * (B + 1) * M * w);
    for (let b = 0; b <= B; b++) {
      for (let j = 0; j < M; j++) {
        const free = this.row(FREE, b, j) * w;
        t[free + 1] = this.lam[j];
        t[free + 2] = this.mu[b]; // 0 for b = 0 (waiting)
        let s = 3;
        for (let jj = 0; jj < M; jj++) if (jj !== j) t[free + s++] = this.Q[j * M + jj];
        t[this.row(CLAMPED, b, j) * w + 2] = this.mu[b];
        // Final: the completion absorbs (no move), so it only lowers the stay.
        t[this.row(FINAL, b, j) * w] = 1 - this.mu[b] / this.rate;
      }
    }
    for (let r = 0; r < 2 * (B + 1) * M; r++) {
      let out = 0;
      for (let s = 1; s <= slots; s++) out += t[r * w + s];
      t[r * w] = 1 - out / this.rate;
      for (let s = 1; s <= slots; s++) t[r * w + s] /= this.rate;
    }
    return t;
  }

  /** The state the entry point (k ahead, phase j, idle or serving a batch) starts from. */
  entryState(k: number, j: number, serving: number): number {
    return serving === 0 ? this.epoch(k, 0, j) : this.state(k, 0, serving, j);
  }

  isExpanded(i: number): boolean {
    return this.rec[i * this.stride] > 0;
  }

  /** Builds the moves of state i (and ids for their targets, only where the move's rate is positive). */
  expand(i: number): void {
    const at = i * this.stride;
    if (i <= this.B) {
      this.rec[at] = this.row(FINAL, i, 0) + 1; // to absorption: no move
      return;
    }
    const { B, M, W } = this;
    const block = Math.floor((i - B - 1) / W);
    const r = i - B - 1 - block * W;
    const m = Math.floor(r / M);
    const j = r - m * M;
    const k = Math.floor(this.lineOf[block] / (B + 1));
    const md = this.lineOf[block] - k * (B + 1);
    if (m === this.mCap) {
      // Clamped: only the completion matters (waiting cannot occur here).
      this.rec[at + 2] = this.epoch(k, m, 0) + 1;
      this.rec[at] = this.row(CLAMPED, md, 0) + 1;
      return;
    }
    const row = this.row(FREE, md, j);
    const p = this.table;
    const w = this.slots + 1;
    if (p[row * w + 1] > 0) this.rec[at + 1] = (md === 0 ? this.epoch(k, m + 1, j) : this.state(k, m + 1, md, j)) + 1;
    if (md > 0) this.rec[at + 2] = this.epoch(k, m, j) + 1;
    let s = 2;
    for (let jj = 0; jj < M; jj++) {
      if (jj === j) continue;
      s++;
      if (p[row * w + s] > 0) this.rec[at + s] = (md === 0 ? this.epoch(k, m, jj) : this.state(k, m, md, jj)) + 1;
    }
    this.rec[at] = row + 1;
  }

  private epoch(k: number, m: number, j: number): number {
    const a = this.act[(k + 1 + m) * this.M + j];
    if (a === 0) {
      if (m === this.mCap) throw new Error('uniformChain: a wait past the clamp (the policy is not pure there)');
      return this.state(k, m, 0, j);
    }
    return a > k ? a : this.state(k - a, m, a, j);
  }

  private state(k: number, m: number, md: number, j: number): number {
    if (m >= this.mCap - (k % this.bt)) {
      // Pure from here on (see the class comment): one state per ⌊k/b∞⌋, at the clamp.
      k -= k % this.bt;
      m = this.mCap;
    }
    const jj = m === this.mCap ? 0 : j;
    const line = k * (this.B + 1) + md;
    let block = this.dense ? this.dense[line] - 1 : (this.sparse!.get(line) ?? -1);
    if (block < 0) {
      block = (this.size - this.B - 1) / this.W;
      if (this.size + this.W > this.capacity) {
        throw new LimitError(
          'latency',
          `the uniformized route would take too long here (its chain needs more than ${this.maxIds} ids, its entries: the ${this.B + 1} finals and a block of ${this.W} for every (ahead, batch) line reached, over the bound MAX_CHAIN_IDS)`,
        );
      }
      this.size += this.W;
      this.lineOf[block] = line;
      if (this.dense) this.dense[line] = block + 1;
      else this.sparse!.set(line, block);
    }
    return this.B + 1 + block * this.W + m * this.M + jj;
  }
}
