import { Rng, STREAM_ARRIVALS } from './rng.js';

/**
 * What the engine reads arrivals from: successive arrival times, Infinity when there are no
 * more. ArrivalSource (Poisson, trace) and MmppArrivals (src/sim/mmpp.ts) implement it.
 */
export interface ArrivalStream {
  next(): number;
}

/** Seed of class c's arrival stream: class 0 uses the run's seed, as the single-server simulator does. */
export function classSeed(seed: number, c: number): number {
  return (seed + c * 1_000_003) % 2 ** 53;
}

/** Poisson arrivals are drawn this many at a time, in a tight loop (about twice as fast as one by one). */
const BLOCK = 1024;

/**
 * Where arrivals come from: a seeded Poisson process or a replayed trace, both read from a
 * buffer: a trace is one buffer, Poisson arrivals refill theirs a block at a time. One class
 * keeps the engine's per-arrival call monomorphic and inlinable. `next()` returns successive
 * arrival times and Infinity once a trace is used up.
 */
export class ArrivalSource {
  private buf: Float64Array;
  private i = 0;
  private n: number;
  private t = 0;
  private readonly invRate: number;
  private readonly rng: Rng | null;

  private constructor(rate: number, seed: number, times: Float64Array | null) {
    this.invRate = 1 / rate;
    this.rng = times ? null : new Rng(seed, STREAM_ARRIVALS);
    this.buf = times ?? new Float64Array(BLOCK);
    this.n = times ? times.length : 0;
  }

  /** Poisson arrivals at `rate` per second from time 0; the same seed gives the same times. */
  static poisson(rate: number, seed: number): ArrivalSource {
    return new ArrivalSource(rate, seed, null);
  }

  /** Replays non-decreasing timestamps (seconds). */
  static trace(times: Float64Array): ArrivalSource {
    return new ArrivalSource(1, 0, times);
  }

  get isTrace(): boolean {
    return this.rng === null;
  }

  next(): number {
    return this.i < this.n ? this.buf[this.i++] : this.refill();
  }

  private refill(): number {
    const rng = this.rng;
    if (rng === null) return Infinity;
    const buf = this.buf;
    const inv = this.invRate;
    let t = this.t;
    for (let k = 0; k < BLOCK; k++) {
      t += rng.nextExponential() * inv;
      buf[k] = t;
    }
    this.t = t;
    this.n = BLOCK;
    this.i = 1;
    return buf[0];
  }
}

/** The first n arrival times the simulator draws for (rate, seed): a trace that replays a Poisson run. */
export function poissonArrivalTimes(rate: number, n: number, seed: number): Float64Array {
  const src = ArrivalSource.poisson(rate, seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = src.next();
  return out;
}
