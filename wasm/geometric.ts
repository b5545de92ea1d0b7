// The pivots of the geometric-law reduction (src/policy/geometricFactor.ts factorGeometric says
// what the arrays are and why the columns right of a row are kept as class and tail sums).

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

import { imax, ld, ldi, st } from './memory';

/**
 * Eliminates pivots k = from, from − 1, …, down to (not including) to, of an n-state chain whose
 * largest downward jump is lo: per pivot its row left of the diagonal into red, d(k), and the
 * class and tail multipliers phi and psi, updating the class sums G (C × n) and the tail sums H
 * (3 × n, the first `tails` used). Classes [0, active) are carried, active = those whose reach is
 * at least k (reach sorted descending). Returns −1, or the pivot whose sum is zero or not finite.
 */
export function geometricPivots(
  n: i32,
  lo: i32,
  C: i32,
  tails: i32,
  from: i32,
  to: i32,
  act: usize,
  cls: usize,
  complement: usize,
  tail: usize,
  q: usize,
  cqb: usize,
  reach: usize,
  d: usize,
  red: usize,
  phi: usize,
  psi: usize,
  G: usize,
  H: usize,
): i32 {
  const S = n - 1;
  let active = 0;
  for (let k = from; k > to; k--) {
    while (active < C && ldi(reach, active) >= k) active++;
    const base = k * lo - k + lo;
    const jlo = imax(0, k - lo);
    const c = ldi(cls, k);
    if (c < 0) {
      // A wait row's only entry right of it, a(k, k+1) = 1, brings pivot k+1's row over.
      const m = 1 / ld(d, k + 1);
      const b1 = (k + 1) * lo - (k + 1) + lo;
      for (let j = imax(0, k + 1 - lo); j < k; j++) st(red, base + j, ld(red, b1 + j) * m);
    } else {
      const t0 = ld(tail, k * 3);
      const t1 = ld(tail, k * 3 + 1);
      const t2 = ld(tail, k * 3 + 2);
      const g = c * n;
      for (let j = jlo; j < k; j++) st(red, base + j, ld(G, g + j) + t0 * ld(H, j) + t1 * ld(H, n + j) + t2 * ld(H, 2 * n + j));
      const b = ldi(act, k);
      const qc = ld(q, c);
      let p = ld(complement, b);
      for (let j = k - b; j < k; j++) {
        st(red, base + j, ld(red, base + j) + p);
        p *= qc;
      }
      if (S - 1 < k) st(red, base + S - 1, ld(red, base + S - 1) + t1);
      if (S - 2 < k) st(red, base + S - 2, ld(red, base + S - 2) + t2);
    }
    let dk = 0.0;
    for (let j = jlo; j < k; j++) dk += ld(red, base + j);
    if (!(Math.abs(dk) > 0) || !isFinite(dk)) return k;
    st(d, k, dk);
    for (let cc = 0; cc < active; cc++) {
      const g = cc * n;
      const ph = (ld(cqb, cc) + ld(G, g + k)) / dk;
      st(phi, k * C + cc, ph);
      scaleAdd(G, g, ld(q, cc), ph, red, base, jlo, k);
    }
    for (let t = 0; t < tails; t++) {
      const h = t * n;
      const ps = ((k == S - t ? 1.0 : 0.0) + ld(H, h + k)) / dk;
      st(psi, k * 3 + t, ps);
      for (let j = jlo; j < k; j++) st(H, h + j, ld(H, h + j) + ps * ld(red, base + j));
    }
  }
  return -1;
}

/**
 * x[g + j] = s·(x[g + j] + m·y[base + j]) for jlo ≤ j < k, two lanes at a time: each lane is
 * the scalar expression (wasm f64x2 mul and add are IEEE binary64, unfused), so the result is
 * the same to the last bit.
 */
@inline function scaleAdd(x: usize, g: i32, s: f64, m: f64, y: usize, base: i32, jlo: i32, k: i32): void {
  const sv = f64x2.splat(s);
  const mv = f64x2.splat(m);
  let j = jlo;
  for (; j + 2 <= k; j += 2) {
    const px = x + ((<usize>(g + j)) << 3);
    const py = y + ((<usize>(base + j)) << 3);
    v128.store(px, f64x2.mul(sv, f64x2.add(v128.load(px), f64x2.mul(mv, v128.load(py)))));
  }
  for (; j < k; j++) st(x, g + j, s * (ld(x, g + j) + m * ld(y, base + j)));
}
