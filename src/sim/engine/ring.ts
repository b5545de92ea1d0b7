/**
 * FIFO of waiting requests at one (server, class): arrival time and, when the run needs them,
 * the head-of-line mark (the server's "busy with other classes" clock at arrival; only with
 * several classes) and a tag (arrival index, for learners that pair a routing decision with its
 * outcome). A power-of-two ring that doubles when full and refuses to pass `limit` entries (only
 * an unstable run gets there). The engine reads the arrays, `head` and `mask` directly in its
 * per-request loops; columns a run does not need are null, so a single-class run stores one
 * number per arrival.
 */
export class RequestRing {
  time: Float64Array;
  mark: Float64Array | null;
  tag: Float64Array | null;
  mask: number;
  head = 0;
  count = 0;

  constructor(
    private readonly limit: number,
    private readonly overflow: (limit: number, now: number) => Error,
    marks: boolean,
    tags: boolean,
  ) {
    const cap = 1024;
    this.time = new Float64Array(cap);
    this.mark = marks ? new Float64Array(cap) : null;
    this.tag = tags ? new Float64Array(cap) : null;
    this.mask = cap - 1;
  }

  push(t: number, mark: number, tag: number): void {
    if (this.count === this.time.length) this.grow(t);
    const i = (this.head + this.count) & this.mask;
    this.time[i] = t;
    if (this.mark !== null) this.mark[i] = mark;
    if (this.tag !== null) this.tag[i] = tag;
    this.count++;
  }

  /** push() for a ring with neither marks nor tags: the single-server hot path. */
  pushTime(t: number): void {
    if (this.count === this.time.length) this.grow(t);
    this.time[(this.head + this.count) & this.mask] = t;
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
    if (cap > this.limit) throw this.overflow(this.limit, now);
    const copy = (src: Float64Array): Float64Array => {
      const out = new Float64Array(cap);
      for (let i = 0; i < this.count; i++) out[i] = src[(this.head + i) & this.mask];
      return out;
    };
    this.time = copy(this.time);
    if (this.mark !== null) this.mark = copy(this.mark);
    if (this.tag !== null) this.tag = copy(this.tag);
    this.mask = cap - 1;
    this.head = 0;
  }
}
