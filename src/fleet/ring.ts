import { LimitError } from '../model/errors.js';

/**
 * FIFO of waiting requests at one (accelerator, class): arrival time, the head-of-line mark
 * (the accelerator's "busy with other classes" clock at arrival) and a tag (arrival index,
 * for learners that pair a routing decision with its outcome). A power-of-two ring that
 * doubles when full and refuses to pass `limit` entries (only an unstable fleet gets there).
 */
export class RequestRing {
  time: Float64Array;
  mark: Float64Array;
  tag: Float64Array;
  mask: number;
  head = 0;
  count = 0;

  constructor(private readonly limit: number) {
    this.time = new Float64Array(64);
    this.mark = new Float64Array(64);
    this.tag = new Float64Array(64);
    this.mask = 63;
  }

  push(t: number, mark: number, tag: number): void {
    if (this.count === this.time.length) this.grow(t);
    const i = (this.head + this.count) & this.mask;
    this.time[i] = t;
    this.mark[i] = mark;
    this.tag[i] = tag;
    this.count++;
  }

  /** Arrival time of the i-th oldest waiting request (0 = head). */
  at(i: number): number {
    return this.time[(this.head + i) & this.mask];
  }

  drop(n: number): void {
    this.head = (this.head + n) & this.mask;
    this.count -= n;
  }

  private grow(now: number): void {
    const cap = this.time.length * 2;
    if (cap > this.limit) {
      throw new LimitError('router', `an accelerator queue passed ${this.limit} waiting requests at t = ${now} s: the fleet cannot keep up under this router and policy (unstable)`);
    }
    const copy = (src: Float64Array): Float64Array => {
      const out = new Float64Array(cap);
      for (let i = 0; i < this.count; i++) out[i] = src[(this.head + i) & this.mask];
      return out;
    };
    this.time = copy(this.time);
    this.mark = copy(this.mark);
    this.tag = copy(this.tag);
    this.mask = cap - 1;
    this.head = 0;
  }
}
