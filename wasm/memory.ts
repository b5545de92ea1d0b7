// Loads and stores by element index on byte addresses, and integer min/max: what every kernel reads with.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

@inline export function ld(base: usize, i: i32): f64 {
  return load<f64>(base + ((<usize>i) << 3));
}
@inline export function st(base: usize, i: i32, v: f64): void {
  store<f64>(base + ((<usize>i) << 3), v);
}
@inline export function ldi(base: usize, i: i32): i32 {
  return load<i32>(base + ((<usize>i) << 2));
}
@inline export function sti(base: usize, i: i32, v: i32): void {
  store<i32>(base + ((<usize>i) << 2), v);
}
@inline export function imin(a: i32, b: i32): i32 {
  return a < b ? a : b;
}
@inline export function imax(a: i32, b: i32): i32 {
  return a > b ? a : b;
}
