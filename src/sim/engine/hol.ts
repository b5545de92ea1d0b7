import type { RequestRing } from './ring.js';

/**
 * Head-of-line blocking of a request = time its server spent, while it waited, serving batches
 * with none of its class, plus (mixed batching) the part of its own batch's time due to a
 * slower class: T·(1 − l_own(b)/l_slowest(b)). Each (server, class) keeps a clock of the busy
 * time spent on batches lacking the class; a request's mark is that clock at its arrival.
 * With one class the blocking is zero by construction, and the engine does not keep clocks.
 */
export class HolClocks {
  /** Per (a, c) at a·C + c: busy time of a with batches lacking c. */
  private readonly clock: Float64Array;

  constructor(
    servers: number,
    private readonly C: number,
  ) {
    this.clock = new Float64Array(servers * C);
  }

  /** The mark of a class-c arrival at a at time t, while a's batch (classes `mask`) runs until doneAt (< 0: idle). */
  mark(a: number, c: number, t: number, doneAt: number, mask: number): number {
    // While a batch lacking c runs, the clock is ahead by the part of it still to come.
    const lacks = doneAt >= 0 && (mask & (1 << c)) === 0;
    return this.clock[a * this.C + c] - (lacks ? doneAt - t : 0);
  }

  /** A batch of classes `mask` starts at a for T seconds: the clocks of the other classes advance. */
  advance(a: number, mask: number, T: number): void {
    for (let c = 0; c < this.C; c++) if ((mask & (1 << c)) === 0) this.clock[a * this.C + c] += T;
  }

  /** Summed blocking of the n oldest requests of ring (class c at a), with `extra` each for a slower class. */
  blocking(a: number, c: number, ring: RequestRing, n: number, extra: number): number {
    const marks = ring.mark!;
    const clock = this.clock[a * this.C + c];
    let hol = 0;
    for (let i = 0; i < n; i++) hol += clock - marks[(ring.head + i) & ring.mask] + extra;
    return hol;
  }
}
