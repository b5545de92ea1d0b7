/**
 * Seeded pseudo-random numbers for the simulator: xoshiro128** (Blackman & Vigna), a
 * 32-bit-word generator that runs on V8's int32 fast path (Math.imul, shifts) without
 * BigInt. Period 2^128 − 1, passes BigCrush; doubles take 53 bits from two outputs.
 *
 * One seed gives several independent streams (arrivals, service times): each stream's
 * state is filled by splitmix32 from (seed, stream), so the arrival sequence of a seed
 * does not depend on the policy. That makes runs of different policies with one seed
 * use common random numbers, and lets a trace written from a seed replay it exactly.
 */
export class Rng {
  /**
   * The four state words. An Int32Array rather than four fields: V8 keeps small integers
   * (31 bits) unboxed in fields but boxes full int32 values, which made each step ~5× slower.
   */
  private readonly s = new Int32Array(4);
  /** Marsaglia's polar method yields normals in pairs; the second waits here. */
  private spare = 0;
  private hasSpare = false;

  constructor(seed: number, stream = 0) {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be an integer in 0..2^53−1 (got ${seed})`);
    // Fold the 53-bit seed and the stream number into a splitmix32 counter.
    let x = (seed % 0x1_0000_0000) ^ Math.imul(Math.floor(seed / 0x1_0000_0000) | 0, 0x85ebca6b) ^ Math.imul(stream + 1, 0xc2b2ae35);
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let t = x ^ (x >>> 16);
      t = Math.imul(t, 0x21f0aaad);
      t ^= t >>> 15;
      t = Math.imul(t, 0x735a2d97);
      return t ^ (t >>> 15);
    };
    const st = this.s;
    for (let i = 0; i < 4; i++) st[i] = next();
    // The all-zero state is the generator's one fixed point.
    if ((st[0] | st[1] | st[2] | st[3]) === 0) st[0] = 1;
  }

  /** Next 32-bit output as a signed int32 (use `>>> 0` for unsigned). */
  nextInt32(): number {
    const st = this.s;
    const s0 = st[0];
    const s1 = st[1];
    const s2 = st[2] ^ s0;
    const s3 = st[3] ^ s1;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
    st[0] = s0 ^ s3;
    st[1] = s1 ^ s2;
    st[2] = s2 ^ (s1 << 9);
    st[3] = rotl(s3, 11);
    return r;
  }

  /** Sets the raw state (tests compare with the reference implementation's sequence). */
  setState(s0: number, s1: number, s2: number, s3: number): void {
    this.s[0] = s0;
    this.s[1] = s1;
    this.s[2] = s2;
    this.s[3] = s3;
  }

  /** Uniform on [0, 1) with 53 random bits. */
  nextDouble(): number {
    const a = this.nextInt32() >>> 5;
    const b = this.nextInt32() >>> 6;
    return (a * 67108864 + b) * 1.1102230246251565e-16;
  }

  /** Standard exponential; 1 − u lies in (0, 1], so the log is finite. */
  nextExponential(): number {
    return -Math.log(1 - this.nextDouble());
  }

  /** Standard normal by Marsaglia's polar method. */
  nextNormal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = 2 * this.nextDouble() - 1;
      v = 2 * this.nextDouble() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const m = Math.sqrt((-2 * Math.log(s)) / s);
    this.spare = v * m;
    this.hasSpare = true;
    return u * m;
  }

  /**
   * Gamma(shape, 1) by Marsaglia & Tsang (2000): a squeeze then a log test on
   * d·(1 + c·x)³ with x normal; shape < 1 uses Gamma(shape + 1)·U^(1/shape).
   */
  nextGamma(shape: number): number {
    if (shape < 1) {
      const g = this.nextGamma(shape + 1);
      return g * Math.pow(1 - this.nextDouble(), 1 / shape);
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = this.nextNormal();
      let v = 1 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      const u = 1 - this.nextDouble();
      const x2 = x * x;
      if (u < 1 - 0.0331 * x2 * x2) return d * v;
      if (Math.log(u) < 0.5 * x2 + d * (1 - v + Math.log(v))) return d * v;
    }
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Stream numbers: which part of the model a generator drives. */
export const STREAM_ARRIVALS = 0;
export const STREAM_SERVICE = 1;
