import { ScenarioError } from '../model/errors.js';
import type { MmppProcess } from '../model/mmpp/process.js';
import { actionAt, type Policy } from '../policy/policy.js';
import type { ArrivalStream } from './arrivals.js';
import type { SimPolicy } from './policies/types.js';
import { Rng, STREAM_ARRIVALS } from './rng.js';

/**
 * Arrivals of a Markov-modulated Poisson process (docs/model.md §7), seeded: the phase holds for
 * Exp(q_j), arrivals come at rate λ_j within it, and at the end the next phase is drawn from
 * row j of Q. The start phase is drawn from π (a stationary start).
 *
 * Phase-aware policies ask for the phase at the current decision epoch. The engine only asks
 * at times between the last arrival it consumed and the one it holds in look-ahead, so the
 * source keeps just the phase changes of that stretch: no history grows with the run.
 */
export class MmppArrivals implements ArrivalStream {
  private readonly rng: Rng;
  private readonly M: number;
  private readonly rates: Float64Array;
  private readonly Q: Float64Array;
  /** Generation cursor: time, phase, end of the current phase's holding time. */
  private t = 0;
  private phase: number;
  private segmentEnd: number;
  /** Phase at `logFrom`, then the changes after it (times ascending). */
  private logFrom = 0;
  private logPhase: number;
  private readonly changeTimes: number[] = [];
  private readonly changePhases: number[] = [];

  constructor(proc: MmppProcess, seed: number) {
    this.rng = new Rng(seed, STREAM_ARRIVALS);
    this.M = proc.phases;
    this.rates = proc.rates;
    this.Q = proc.generator;
    let u = this.rng.nextDouble();
    let j = 0;
    while (j < this.M - 1 && u >= proc.stationary[j]) u -= proc.stationary[j++];
    this.phase = j;
    this.logPhase = j;
    this.segmentEnd = this.holding(j);
  }

  next(): number {
    // Queries from now on come at or after the arrival handed out last (this.t).
    this.forget(this.t);
    for (;;) {
      const rate = this.rates[this.phase];
      const a = rate > 0 ? this.t + this.rng.nextExponential() / rate : Infinity;
      if (a < this.segmentEnd) {
        this.t = a;
        return a;
      }
      this.t = this.segmentEnd;
      this.phase = this.jump(this.phase);
      this.segmentEnd = this.t + this.holding(this.phase);
      this.changeTimes.push(this.t);
      this.changePhases.push(this.phase);
    }
  }

  /** Phase at time t (after every change at or before t); t must not precede the last arrival consumed. */
  phaseAt(t: number): number {
    let j = this.logPhase;
    for (let i = 0; i < this.changeTimes.length && this.changeTimes[i] <= t; i++) j = this.changePhases[i];
    return j;
  }

  /** First phase change after t and before the look-ahead arrival; Infinity if there is none. */
  nextChangeAfter(t: number): number {
    for (const c of this.changeTimes) if (c > t) return c;
    return Infinity;
  }

  private forget(t: number): void {
    if (t < this.logFrom) return;
    let i = 0;
    while (i < this.changeTimes.length && this.changeTimes[i] <= t) this.logPhase = this.changePhases[i++];
    this.changeTimes.splice(0, i);
    this.changePhases.splice(0, i);
    this.logFrom = t;
  }

  private holding(j: number): number {
    const q = -this.Q[j * this.M + j];
    return q > 0 ? this.rng.nextExponential() / q : Infinity;
  }

  private jump(j: number): number {
    const M = this.M;
    let u = this.rng.nextDouble() * -this.Q[j * M + j];
    let last = j;
    for (let k = 0; k < M; k++) {
      if (k === j || !(this.Q[j * M + k] > 0)) continue;
      last = k;
      u -= this.Q[j * M + k];
      if (u < 0) return k;
    }
    return last;
  }
}

/**
 * A stationary (queue, phase) policy of docs/model.md §7 for the simulator: the action at a decision
 * epoch is the table's entry for the queue length and the current arrival phase, and a phase
 * change while waiting is itself a decision epoch (the policy asks to wake at it).
 */
export class MmppTablePolicy implements SimPolicy {
  readonly padding = null;
  readonly sustainedBatch: number;
  private source: MmppArrivals | null = null;

  constructor(
    private readonly policy: Policy,
    readonly name: string,
  ) {
    this.sustainedBatch = policy.tailBatch;
  }

  bindArrivals(arrivals: ArrivalStream): void {
    if (!(arrivals instanceof MmppArrivals)) {
      throw new ScenarioError('policy', `${this.name} acts on the arrival phase, so it needs MMPP arrivals (the scenario's arrivalProcess), not a trace or Poisson arrivals`);
    }
    this.source = arrivals;
  }

  decide(queue: number, now: number): number {
    return actionAt(this.policy, queue, this.source!.phaseAt(now));
  }

  wakeAt(_queue: number, now: number): number {
    return this.source!.nextChangeAfter(now);
  }

  onBatchDone(): void {}

  reset(): void {}
}
