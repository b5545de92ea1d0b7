import { KERNELS_WASM } from './kernels.wasm.js';

/**
 * The inner loops compiled ahead of time to WebAssembly (source: wasm/*.ts, built by
 * `npm run build:wasm`). A fresh process or worker runs JavaScript loops in the interpreter
 * until the JIT catches up, tens of milliseconds on a small solve; wasm is compiled at load
 * (Liftoff, well under a millisecond) and runs at near-native speed from the first call.
 * Each kernel works on the memory of its instance, addressed in bytes; the callers keep their
 * arrays as views into that memory.
 */
export interface Kernels {
  factorSetup(
    a: number,
    reduced: number,
    f: number,
    pivots: number,
    colFrom: number,
    colTo: number,
    left: number,
    right: number,
    n: number,
    lo: number,
    hi: number,
    ref: number,
    W: number,
    span: number,
    period: number,
  ): void;
  scanEnvelopes(from: number, to: number): void;
  sweepBegin(start: number, stop: number, dir: number, resumed: number): void;
  /** 0: done, 1: more to do, 2: failedPivot() reaches nothing on the reference's side. */
  sweepRun(steps: number): number;
  copiedPivots(): number;
  failedPivot(): number;
  bellmanModel(
    S: number,
    B: number,
    M: number,
    tau: number,
    costSlope: number,
    kappa: number,
    sojourn: number,
    tailFirstState: number,
    tailStart: number,
    tailCoef: number,
    serves: number,
    h: number,
    keep: number,
    serveValue: number,
    keepValue: number,
    serve: number,
  ): void;
  bellmanServes(pmfOffset: number, pmfStart: number, pmfLength: number, pmf: number, b: number, prune: number, work: number, queue: number): void;
  /** The serve sums this instance formed (formed = 1) or skipped (0) so far. */
  bellmanCount(formed: number): number;
  bellmanCascade(ratio: number, complement: number, shape: number, state: number, b: number): void;
  bellmanFinish(waitRate: number, phaseRate: number, gap: number, policy: number, waits: number): void;
  /** Returns the argmax of ν. */
  stationary(f: number, nu: number, n: number, lo: number, hi: number, ref: number, span: number): number;
  forwardSubstitute(f: number, v: number, n: number, lo: number, hi: number, ref: number, span: number): void;
  backSubstitute(a: number, d: number, reward: number, time: number, values: number, n: number, lo: number, hi: number, ref: number, W: number, gain: number): void;
  residual(a: number, reward: number, time: number, h: number, r: number, n: number, lo: number, hi: number, W: number, g: number): void;
  addInto(h: number, dh: number, n: number): void;
  /** −1, or the pivot whose sum is zero or not finite (src/policy/geometricFactor.ts). */
  geometricPivots(
    n: number,
    lo: number,
    C: number,
    tails: number,
    from: number,
    to: number,
    act: number,
    cls: number,
    complement: number,
    tail: number,
    q: number,
    cqb: number,
    reach: number,
    d: number,
    red: number,
    phi: number,
    psi: number,
    G: number,
    H: number,
  ): number;
  /** One uniformization step (wasm/uniform.ts); returns how many states got mass. */
  uniformStep(rec: number, table: number, u: number, v: number, cur: number, next: number, todo: number, curLen: number, stride: number, slots: number, dropBelow: number): number;
  /** How many states the last uniformStep listed as to be expanded. */
  uniformTodo(): number;
  /** 0: the mass after the last step, 1: the mass dropped, 2: the moves stepped (since uniformReset). */
  uniformSum(which: number): number;
  uniformReset(): void;
  addServeLaw(band: number, row: number, probs: number, base: number, L: number, M: number, first: number, top: number, modes: number, mode: number, prob: number): void;
  addRun(x: number, dst: number, y: number, src: number, len: number): void;
  tailCoefficients(
    offset: number,
    start: number,
    length: number,
    m0: number,
    m1: number,
    m2: number,
    tailFirstState: number,
    tailStart: number,
    tailCoef: number,
    B: number,
    M: number,
    S: number,
  ): void;
}

/** A wasm memory, as far as the callers use one. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/**
 * The few parts of the WebAssembly API used here, typed locally: the project's libs (ES2023,
 * Node's types) do not declare it, and the declarations shipped in dist must not need the DOM's.
 */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object, imports: object) => { readonly exports: unknown };
  readonly Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Compiled once per thread, when first needed. */
let compiled: object | undefined;

/** The kernels, instantiated on `memory` (each instance addresses only its own memory). */
export function kernelsOn(memory: WasmMemory): Kernels {
  compiled ??= new wasm.Module(Buffer.from(KERNELS_WASM, 'base64'));
  return new wasm.Instance(compiled, { env: { memory } }).exports as Kernels;
}

const PAGE = 65536;

/** A memory of at least `bytes`, fixed in size (views into it are never detached by growth). */
export function fixedMemory(bytes: number): WasmMemory {
  const pages = Math.max(1, Math.ceil(bytes / PAGE));
  return new wasm.Memory({ initial: pages, maximum: pages });
}

/** Byte offsets for arrays laid out one after another in a memory, 8-aligned, from 8 on (0 means "none" to a kernel). */
export class Layout {
  bytes = 8;
  f64(len: number): number {
    const at = this.bytes;
    this.bytes += 8 * len;
    return at;
  }
  i32(len: number): number {
    const at = this.bytes;
    this.bytes += 4 * len + ((4 * len) & 4);
    return at;
  }
}

/** Scratch memories past this size are dropped after use: a thread keeps no large one. */
const KEEP_SCRATCH_BYTES = 32 << 20;

/**
 * A thread's scratch memory for kernels whose inputs are copied in and outputs copied out per
 * call (the copies cost far less than the kernel).
 */
export interface Scratch {
  readonly kernels: Kernels;
  readonly buffer: ArrayBuffer;
}

let scratch: (Scratch & { owner: object | undefined }) | undefined;

/**
 * The thread's scratch memory, at least `bytes` (a new, empty one when the last was smaller),
 * now holding the inputs of `owner` (none: a use that keeps nothing there). `kept`: it holds
 * them already, from a use by the same owner that nothing has overwritten since, so that they
 * need not be copied again.
 */
export function scratchFor(bytes: number, owner?: object): { scratch: Scratch; kept: boolean } {
  if (!scratch || scratch.buffer.byteLength < bytes) {
    const memory = fixedMemory(Math.max(bytes, 1 << 20));
    scratch = { kernels: kernelsOn(memory), buffer: memory.buffer, owner: undefined };
  }
  const kept = owner !== undefined && scratch.owner === owner;
  scratch.owner = owner;
  return { scratch, kept };
}

/** Ends a use of the scratch memory: a large one is let go. */
export function releaseScratch(s: Scratch): void {
  if (s === scratch && s.buffer.byteLength > KEEP_SCRATCH_BYTES) scratch = undefined;
}
