// AssemblyScript source of the wasm kernels (src/wasm/kernels.ts loads the binary built from it:
// `npm run build:wasm`). Each kernel is the only implementation of its loop: the TypeScript
// callers keep the bookkeeping and hand over byte addresses into the memory they import.
// The arithmetic is the same expressions in the same order as the JavaScript they replaced
// (wasm f64 is IEEE binary64 with no fused or reassociated operations), so results agree
// to the last bit.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

@inline function ld(base: usize, i: i32): f64 {
  return load<f64>(base + ((<usize>i) << 3));
}
@inline function st(base: usize, i: i32, v: f64): void {
  store<f64>(base + ((<usize>i) << 3), v);
}
@inline function ldi(base: usize, i: i32): i32 {
  return load<i32>(base + ((<usize>i) << 2));
}
@inline function sti(base: usize, i: i32, v: i32): void {
  store<i32>(base + ((<usize>i) << 2), v);
}
@inline function imin(a: i32, b: i32): i32 {
  return a < b ? a : b;
}
@inline function imax(a: i32, b: i32): i32 {
  return a > b ? a : b;
}

/** a[dst + e] += m·a[src + e] for e < len, unrolled by four (the same operations in the same order). */
export function axpy(a: usize, dst: i32, src: i32, m: f64, len: i32): void {
  let q = a + ((<usize>dst) << 3);
  let p = a + ((<usize>src) << 3);
  let e = 0;
  for (const end = len - 3; e < end; e += 4) {
    store<f64>(q, load<f64>(q) + m * load<f64>(p));
    store<f64>(q, load<f64>(q, 8) + m * load<f64>(p, 8), 8);
    store<f64>(q, load<f64>(q, 16) + m * load<f64>(p, 16), 16);
    store<f64>(q, load<f64>(q, 24) + m * load<f64>(p, 24), 24);
    q += 32;
    p += 32;
  }
  for (; e < len; e++) {
    store<f64>(q, load<f64>(q) + m * load<f64>(p));
    q += 8;
    p += 8;
  }
}

/**
 * Eliminates pivot k of a banded chain's reduction (chainSweep.ts `eliminate` says what it
 * does); false when nothing on the reference's side is reachable from k (UnreachableReference).
 * The arrays are byte addresses: a (the band, n·W), f (multipliers, n·span), pivots, and the
 * i32 arrays colFrom, colTo, left, right (n each).
 */
export function eliminate(
  a: usize,
  f: usize,
  pivots: usize,
  colFrom: usize,
  colTo: usize,
  left: usize,
  right: usize,
  n: i32,
  lo: i32,
  hi: i32,
  ref: i32,
  W: i32,
  span: i32,
  k: i32,
  dir: i32,
): bool {
  const rk = k * W - k + lo;
  const c0 = dir > 0 ? k + 1 : imax(imax(ref, k - lo), ldi(left, k));
  const c1 = dir > 0 ? imin(imin(n - 1, k + hi), ldi(right, k)) + 1 : k;
  let dk: f64 = 0;
  for (let j = c0; j < c1; j++) dk += ld(a, rk + j);
  if (!(Math.abs(dk) > 0)) return false;
  st(pivots, k, dk);
  sti(colFrom, k, c0);
  sti(colTo, k, c1);
  const r0 = dir > 0 ? k + 1 : imax(ref, k - hi);
  const r1 = dir > 0 ? imin(n - 1, k + lo) + 1 : k;
  const fk = k * span - 1 - dir * k; // f[fk + dir·i] = f(i, k)
  for (let i = r0; i < r1; i++) {
    const ri = i * W - i + lo;
    const aik = ld(a, ri + k);
    if (aik == 0) continue;
    const m = aik / dk;
    st(f, fk + dir * i, m);
    axpy(a, ri + c0, rk + c0, m, c1 - c0);
    if (dir > 0) sti(right, i, imax(ldi(right, i), c1 - 1));
    else sti(left, i, imin(ldi(left, i), c0));
  }
  return true;
}
