/**
 * A learned joint batching rule for several classes on one accelerator: a linear-softmax policy
 * over the actions {wait, serve class c with min(n_c, B_c)} at state n. The action's score is
 * θ · φ(a), where φ(a) puts the state features ψ(n) = [1, x_1..x_C, f_1..f_C] (x_c = min(n_c, 2B_c)/B_c,
 * f_c = 1 when a full batch of c waits) in the action's block. Serving an empty class is never
 * offered, nor waiting while some class has a full batch (so every policy of the family is
 * stable wherever serving single requests is). Training samples an action (own seeded stream);
 * evaluation takes the most likely one.
 *
 * While recording, it also measures the cost of each interval between decisions exactly from
 * the queues: ∫ Σ_c (w_c/λ_c)·N_c dt + w_pow·∫ P dt, where N_c counts waiting and in-service
 * requests (docs/model.md §10's cost rate), so a decision's cost is the simulator's own.
 */
import type { ClassesParams } from '../../model/classes/params.js';
import type { JointChooser, JointDecision } from '../../sim/joint/chooser.js';
import type { ClassQueues } from '../../sim/policies/types.js';
import { Rng } from '../../sim/rng.js';
import { pickAction, softmax } from '../../fleet/learn/linearRouter.js';

/** Features per action block. */
export function stateFeatures(C: number): number {
  return 1 + 2 * C;
}

/** One recorded decision: its feature rows, the actions they stand for, the choice, its probability. */
export interface Step {
  readonly phi: Float64Array;
  readonly actions: Int32Array;
  readonly act: number;
  readonly prob: number;
  /** Cost and length of the interval until the next decision (filled in then; NaN until). */
  cost: number;
  span: number;
}

export class LinearJointAgent implements JointChooser {
  readonly name: string;
  /** When set, each decision is recorded here (training). */
  record: Step[] | null = null;
  private readonly C: number;
  private readonly D: number;
  private readonly F: number;
  private rng: Rng;
  private readonly rows: Float64Array;
  private readonly probs: Float64Array;
  private readonly acts: Int32Array;
  // The last decision, for the cost of the interval after it.
  private lastT = NaN;
  private lastN: Int32Array;
  private lastCls = -1;
  private lastB = 0;
  private doneAt = NaN;
  private doneT = 0;

  constructor(
    private readonly p: ClassesParams,
    /** θ: (C + 1) blocks of stateFeatures(C); block 0 is waiting, block c + 1 serving class c. */
    readonly theta: Float64Array,
    private readonly sample: boolean,
    private readonly seed: number,
    name = 'learned',
  ) {
    this.name = name;
    this.C = p.classes.length;
    this.D = stateFeatures(this.C);
    this.F = (this.C + 1) * this.D;
    if (theta.length !== this.F) throw new Error(`learned agent: θ has ${theta.length} entries, ${this.F} expected`);
    this.rng = new Rng(seed, 0x6a01);
    this.rows = new Float64Array((this.C + 1) * this.F);
    this.probs = new Float64Array(this.C + 1);
    this.acts = new Int32Array(this.C + 1);
    this.lastN = new Int32Array(this.C);
  }

  choose(n: Int32Array, now: number, q: ClassQueues, out: JointDecision): void {
    if (this.record !== null) this.closeInterval(n, now, q);
    const { C, D, F, rows, acts } = this;
    rows.fill(0);
    let full = false;
    for (let c = 0; c < C; c++) if (n[c] >= this.p.classes[c].maxBatchSize) full = true;
    let k = 0;
    for (let a = full ? 1 : 0; a <= C; a++) {
      if (a > 0 && n[a - 1] === 0) continue;
      const o = k * F + a * D;
      rows[o] = 1;
      for (let c = 0; c < C; c++) {
        const B = this.p.classes[c].maxBatchSize;
        rows[o + 1 + c] = Math.min(n[c], 2 * B) / B;
        rows[o + 1 + C + c] = n[c] >= B ? 1 : 0;
      }
      acts[k++] = a;
    }
    softmax(this.theta, rows, k, this.probs);
    const r = pickAction(this.probs, k, this.sample ? this.rng : null);
    const a = acts[r];
    out.cls = a - 1;
    out.b = a === 0 ? 0 : Math.min(n[a - 1], this.p.classes[a - 1].maxBatchSize);
    if (this.record !== null) {
      this.record.push({ phi: rows.slice(0, k * F), actions: acts.slice(0, k), act: r, prob: this.probs[r], cost: NaN, span: NaN });
      this.lastT = now;
      this.lastN.set(n);
      this.lastCls = out.cls;
      this.lastB = out.b;
      this.doneAt = NaN;
    }
  }

  onBatchDone(_cls: number, _size: number, serviceTime: number): void {
    this.doneT = serviceTime;
    this.doneAt = this.lastT + serviceTime;
  }

  reset(): void {
    this.rng = new Rng(this.seed, 0x6a01);
    this.lastT = NaN;
    this.doneAt = NaN;
  }

  /** The cost of (lastT, now] into the last recorded step. */
  private closeInterval(n: Int32Array, now: number, q: ClassQueues): void {
    const steps = this.record!;
    if (steps.length === 0 || Number.isNaN(this.lastT)) return;
    const { p, C } = this;
    const t0 = this.lastT;
    let cost = 0;
    if (this.lastCls < 0) {
      // Waiting: the counts stayed at lastN until this arrival.
      for (let c = 0; c < C; c++) cost += (p.classes[c].latencyWeight / p.classes[c].arrivalRate) * this.lastN[c] * (now - t0);
      cost += p.powerWeight * p.idlePower * (now - t0);
    } else {
      // A batch ran t0..done: the lastN stayed in the system and each arrival during it from its
      // arrival on; then (only when it left nothing waiting) the server idled empty until now.
      const done = this.doneAt;
      const T = this.doneT;
      for (let c = 0; c < C; c++) {
        let area = this.lastN[c] * T;
        for (let i = 0; i < n[c]; i++) {
          const a = q.at(c, i);
          if (a > t0 && a <= done) area += done - a;
        }
        cost += (p.classes[c].latencyWeight / p.classes[c].arrivalRate) * area;
      }
      const cl = p.classes[this.lastCls];
      cost += p.powerWeight * (cl.busyPower[this.lastB] * T + p.idlePower * (now - done));
    }
    const last = steps[steps.length - 1];
    last.cost = cost;
    last.span = now - t0;
  }
}
