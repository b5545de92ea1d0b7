// The bounds that let bellmanServes skip a serve sum that cannot be the minimum (docs/model.md
// §3.2, "Skipped serve sums"): sliding minima of h's first and second level differences, and
// the rounding allowances that keep every bound below the real quantity.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

import { ld, ldi, sti } from './memory';

/** 2^−52, twice the unit roundoff: every allowance below counts it generously. */
export const EPS: f64 = 2.220446049250313e-16;

// Two monotone deques (order 1: D, order 2: D2), each as head, tail and next entry to push.
let gHead1: i32 = 0;
let gTail1: i32 = 0;
let gNext1: i32 = 0;
let gHead2: i32 = 0;
let gTail2: i32 = 0;
let gNext2: i32 = 0;

/** D(x) = h[x] − h[x − M] (order 1) or D2(x) = D(x) − D(x − M) (order 2), flat entry x, same phase. */
@inline export function diff(h: usize, M: i32, x: i32, order: i32): f64 {
  const d = ld(h, x) - ld(h, x - M);
  return order == 1 ? d : d - (ld(h, x - M) - ld(h, x - 2 * M));
}

/** Empties both windows (a new batch size: its windows start again from the bottom). */
export function windowReset(): void {
  gHead1 = 0;
  gTail1 = 0;
  gNext1 = 0;
  gHead2 = 0;
  gTail2 = 0;
  gNext2 = 0;
}

/**
 * min diff(x, order) over lo ≤ x < hi (lo ≥ order·M), for windows whose ends never move down
 * between resets: a monotone deque of entry indices (queue: i32 per entry), each pushed once.
 */
export function windowMin(h: usize, M: i32, lo: i32, hi: i32, queue: usize, order: i32): f64 {
  let head = order == 1 ? gHead1 : gHead2;
  let tail = order == 1 ? gTail1 : gTail2;
  let next = order == 1 ? gNext1 : gNext2;
  if (next < lo) next = lo;
  for (; next < hi; next++) {
    const d = diff(h, M, next, order);
    while (tail > head && diff(h, M, ldi(queue, tail - 1), order) >= d) tail--;
    sti(queue, tail, next);
    tail++;
  }
  while (ldi(queue, head) < lo) head++;
  if (order == 1) {
    gHead1 = head;
    gTail1 = tail;
    gNext1 = next;
  } else {
    gHead2 = head;
    gTail2 = tail;
    gNext2 = next;
  }
  return diff(h, M, ldi(queue, head), order);
}

/**
 * A bound on the rounding of one in-table sum of `len` terms p·(h(y) − h(x)), each at most
 * `range` (max h − min h) in size, with Σp ≤ 1 (+ rounding): γ_{len+1}·Σ p·|h(y) − h(x)|, doubled.
 */
@inline export function sumAllowance(len: i32, range: f64): f64 {
  return <f64>(len + 8) * EPS * 2 * range;
}

/**
 * What one bound of a shift, P·(lo − at) with lo a window's least difference and at the
 * state's own (their rounding: `slack` each, absolute), must be lowered by to stay below the
 * real one: the mass P summed over len terms, the subtraction and product, and the differences.
 */
@inline export function shiftAllowance(len: i32, lo: f64, at: f64, slack: f64): f64 {
  return <f64>(len + 8) * EPS * 2 * (Math.abs(lo) + Math.abs(at)) + 4 * slack;
}
