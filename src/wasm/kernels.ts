import { KERNELS_WASM } from './kernels.wasm.js';

/**
 * The inner loops compiled ahead of time to WebAssembly (source: wasm/kernels.ts, built by
 * `npm run build:wasm`). A fresh process or worker runs JavaScript loops in the interpreter
 * until the JIT catches up, tens of milliseconds on a small solve; wasm is compiled at load
 * (Liftoff, well under a millisecond) and runs at near-native speed from the first call.
 * Each kernel works on the memory of its instance, addressed in bytes; the callers keep their
 * arrays as views into that memory.
 */
export interface Kernels {
  axpy(a: number, dst: number, src: number, m: number, len: number): void;
  /** Returns 0 when pivot k reaches nothing on the reference's side. */
  eliminate(
    a: number,
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
    k: number,
    dir: number,
  ): number;
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
