import { Rng, STREAM_ARRIVALS } from './rng.js';

/**
 * Where arrivals come from: a seeded Poisson process or a replayed trace. One class with a
 * branch (not two classes) keeps the engine's per-arrival call monomorphic and inlinable.
 * `next()` returns successive arrival times and Infinity once a trace is used up.
 */
export class ArrivalSource {
  private t: number;
  private i = 0;
  private readonly invRate: number;
  private readonly rng: Rng | null;
  private readonly times: Float64Array | null;

  private constructor(rate: number, seed: number, times: Float64Array | null) {
    this.invRate = 1 / rate;
    this.times = times;
    this.rng = times ? null : new Rng(seed, STREAM_ARRIVALS);
    this.t = 0;
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
    return this.times !== null;
  }

  next(): number {
    if (this.rng !== null) {
      this.t += this.rng.nextExponential() * this.invRate;
      return this.t;
    }
    const times = this.times as Float64Array;
    return this.i < times.length ? times[this.i++] : Infinity;
  }
}

/** The first n arrival times the simulator draws for (rate, seed): a trace that replays a Poisson run. */
export function poissonArrivalTimes(rate: number, n: number, seed: number): Float64Array {
  const src = ArrivalSource.poisson(rate, seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = src.next();
  return out;
}
