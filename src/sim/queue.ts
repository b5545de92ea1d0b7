import { LimitError } from '../model/errors.js';

/**
 * The FIFO of arrival times of the waiting requests: a power-of-two ring of f64 that
 * doubles when full (rare, amortised) and refuses to pass `limit` entries, which only an
 * unstable policy reaches. The engine reads `buf`, `mask` and `head` directly in its
 * per-request loop; everything else goes through the methods.
 */
export class ArrivalQueue {
  buf: Float64Array;
  mask: number;
  head = 0;
  count = 0;

  constructor(
    initialCapacity: number,
    private readonly limit: number,
  ) {
    let cap = 16;
    while (cap < initialCapacity) cap *= 2;
    this.buf = new Float64Array(cap);
    this.mask = cap - 1;
  }

  push(t: number): void {
    if (this.count === this.buf.length) this.grow(t);
    this.buf[(this.head + this.count) & this.mask] = t;
    this.count++;
  }

  /** Arrival time of the request at the head (the oldest waiting); only when count > 0. */
  oldest(): number {
    return this.buf[this.head];
  }

  drop(n: number): void {
    this.head = (this.head + n) & this.mask;
    this.count -= n;
  }

  clear(): void {
    this.head = 0;
    this.count = 0;
  }

  private grow(now: number): void {
    if (this.buf.length * 2 > this.limit) {
      throw new LimitError(
        'policy',
        `the queue passed ${this.limit} waiting requests at t = ${now} s: the policy cannot keep up with the arrivals (unstable)`,
      );
    }
    const next = new Float64Array(this.buf.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = this.buf[(this.head + i) & this.mask];
    this.buf = next;
    this.mask = next.length - 1;
    this.head = 0;
  }
}
