import { fixedMemory, kernelsOn, Layout, type Kernels } from '../wasm/kernels.js';

/** What a chain memory knows of the factor that lives in it (chainSweep.ts ChainFactor). */
interface Tenant {
  consumed: boolean;
}

/**
 * The wasm memory a banded chain and its reduction live in, with the kernels (wasm/)
 * instantiated on it: the chain's band, rewards and sojourns, and the arrays of one factor and
 * of the solves from it, as views. It is sized once and never grows, so that the views stay
 * valid; untouched parts of it cost no physical memory. One factor lives in it at a time: the
 * next factorisation of the chain marks the previous one consumed (as one that took it over
 * would), so a stale factor is never taken for reuse.
 *
 * V8 reserves address space for each wasm memory (about 10 GiB, so that guard pages replace
 * bounds checks): some ten thousand chains can be alive at once (tests: 12,890 tiny ones), far
 * more than a solve holds (a few), but a caller keeping every solution of a long loop (each
 * holds its factor, hence its chain's memory) should keep the numbers it needs instead.
 */
export class ChainMemory {
  readonly kernels: Kernels;
  /** The chain: band (n·W), reward, time. */
  readonly a: Float64Array;
  readonly reward: Float64Array;
  readonly time: Float64Array;
  /** The factor: reduced band (n·W), multipliers (n·span), pivots; the pivots' columns and the rows' envelopes. */
  readonly reduced: Float64Array;
  readonly f: Float64Array;
  readonly pivots: Float64Array;
  readonly colFrom: Int32Array;
  readonly colTo: Int32Array;
  readonly left: Int32Array;
  readonly right: Int32Array;
  /** Room for what the chain is built from (an arrival table's laws: stateChain.ts, modelChain.ts), empty if none was asked for. */
  readonly extra: Float64Array;
  /** Five vectors of n for the solves (reduced reward and time, values, residual, correction; or ν). */
  readonly vectors: readonly Float64Array[];
  /** Byte addresses of the arrays above, for the kernels. */
  readonly at: {
    readonly a: number;
    readonly reward: number;
    readonly time: number;
    readonly reduced: number;
    readonly f: number;
    readonly pivots: number;
    readonly colFrom: number;
    readonly colTo: number;
    readonly left: number;
    readonly right: number;
    readonly vectors: readonly number[];
    readonly extra: number;
  };
  /** The factor whose arrays these are now. */
  tenant: Tenant | undefined;
  /** Whether a factorisation has written the factor's arrays (until then they are zero, as new). */
  dirty = false;

  constructor(
    readonly n: number,
    readonly W: number,
    readonly span: number,
    extra = 0,
  ) {
    const lay = new Layout();
    const at = {
      a: lay.f64(n * W),
      reward: lay.f64(n),
      time: lay.f64(n),
      reduced: lay.f64(n * W),
      f: lay.f64(n * span),
      pivots: lay.f64(n),
      vectors: [lay.f64(n), lay.f64(n), lay.f64(n), lay.f64(n), lay.f64(n)],
      extra: lay.f64(extra),
      colFrom: lay.i32(n),
      colTo: lay.i32(n),
      left: lay.i32(n),
      right: lay.i32(n),
    };
    const memory = fixedMemory(lay.bytes);
    const buf = memory.buffer;
    const f64 = (addr: number, len: number) => new Float64Array(buf, addr, len);
    const i32 = (addr: number, len: number) => new Int32Array(buf, addr, len);
    this.at = at;
    this.a = f64(at.a, n * W);
    this.reward = f64(at.reward, n);
    this.time = f64(at.time, n);
    this.reduced = f64(at.reduced, n * W);
    this.f = f64(at.f, n * span);
    this.pivots = f64(at.pivots, n);
    this.vectors = at.vectors.map((v) => f64(v, n));
    this.extra = f64(at.extra, extra);
    this.colFrom = i32(at.colFrom, n);
    this.colTo = i32(at.colTo, n);
    this.left = i32(at.left, n);
    this.right = i32(at.right, n);
    this.kernels = kernelsOn(memory);
  }
}
