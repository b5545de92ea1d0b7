// After the reduction (src/policy/chain.ts says what each computes). Vectors are n doubles.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

import { imax, imin, ld, ldi, st, sti } from './memory';

/** Past this, the unnormalised ν is scaled down (a reference far out in a fast-decaying tail). */
const RESCALE_ABOVE: f64 = 1e200;

/** ν from the multipliers f, normalised, into nu; returns its argmax (the first one). */
export function stationary(f: usize, nu: usize, n: i32, lo: i32, hi: i32, ref: i32, span: i32): i32 {
  memory.fill(nu, 0, (<usize>n) << 3);
  st(nu, ref, 1);
  for (let k = ref + 1; k < n; k++) {
    const fk = k * span + k - 1;
    let p: f64 = 0;
    for (let i = imax(ref, k - hi); i < k; i++) p += ld(nu, i) * ld(f, fk - i);
    st(nu, k, p);
    if (p > RESCALE_ABOVE) for (let x = 0; x < n; x++) st(nu, x, ld(nu, x) / RESCALE_ABOVE);
  }
  for (let k = ref - 1; k >= 0; k--) {
    const fk = k * span - k - 1;
    let p: f64 = 0;
    const ihi = imin(n - 1, k + lo);
    for (let i = k + 1; i <= ihi; i++) p += ld(nu, i) * ld(f, fk + i);
    st(nu, k, p);
    if (p > RESCALE_ABOVE) for (let x = 0; x < n; x++) st(nu, x, ld(nu, x) / RESCALE_ABOVE);
  }
  let total: f64 = 0;
  let mode = ref;
  for (let k = 0; k < n; k++) {
    total += ld(nu, k);
    if (ld(nu, k) > ld(nu, mode)) mode = k;
  }
  for (let k = 0; k < n; k++) st(nu, k, ld(nu, k) / total);
  return mode;
}

/** The elimination's updates applied to v in place: each eliminated state k passes f(i, k) of its entry to the rows i it connected to. */
export function forwardSubstitute(f: usize, v: usize, n: i32, lo: i32, hi: i32, ref: i32, span: i32): void {
  for (let k = 0; k < ref; k++) {
    const vk = ld(v, k);
    if (vk == 0) continue;
    const fk = k * span - k - 1;
    const ihi = imin(n - 1, k + lo);
    for (let i = k + 1; i <= ihi; i++) st(v, i, ld(v, i) + ld(f, fk + i) * vk);
  }
  for (let k = n - 1; k > ref; k--) {
    const vk = ld(v, k);
    if (vk == 0) continue;
    const fk = k * span + k - 1;
    for (let i = imax(ref, k - hi); i < k; i++) st(v, i, ld(v, i) + ld(f, fk - i) * vk);
  }
}

/** h from the reduced system into values, in reverse elimination order (h(ref) = 0). */
export function backSubstitute(a: usize, d: usize, reward: usize, time: usize, values: usize, n: i32, lo: i32, hi: i32, ref: i32, W: i32, gain: f64): void {
  memory.fill(values, 0, (<usize>n) << 3);
  for (let k = ref + 1; k < n; k++) {
    const rk = k * W - k + lo;
    let acc = ld(reward, k) - gain * ld(time, k);
    for (let j = imax(ref, k - lo); j < k; j++) acc += ld(a, rk + j) * ld(values, j);
    st(values, k, acc / ld(d, k));
  }
  for (let k = ref - 1; k >= 0; k--) {
    const rk = k * W - k + lo;
    let acc = ld(reward, k) - gain * ld(time, k);
    const jhi = imin(n - 1, k + hi);
    for (let j = k + 1; j <= jhi; j++) acc += ld(a, rk + j) * ld(values, j);
    st(values, k, acc / ld(d, k));
  }
}

/** r(s) = c(s) − g·y(s) + Σ_j p(s,j)·(h(j) − h(s)) on the original band a. */
export function residual(a: usize, reward: usize, time: usize, h: usize, r: usize, n: i32, lo: i32, hi: i32, W: i32, g: f64): void {
  for (let s = 0; s < n; s++) {
    const rs = s * W - s + lo;
    const hs = ld(h, s);
    let acc: f64 = 0;
    const jlo = imax(0, s - lo);
    const jhi = imin(n - 1, s + hi);
    for (let j = jlo; j <= jhi; j++) {
      const p = ld(a, rs + j);
      if (p != 0) acc += p * (ld(h, j) - hs);
    }
    st(r, s, ld(reward, s) - g * ld(time, s) + acc);
  }
}

/** h += dh over n entries. */
export function addInto(h: usize, dh: usize, n: i32): void {
  for (let s = 0; s < n; s++) st(h, s, ld(h, s) + ld(dh, s));
}
