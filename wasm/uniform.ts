// One uniformization step of the lazily built absorbing chain (src/latency/uniformized.ts
// survivals, docs/model.md §9.2): u_{n+1} = u_n·P over the states that hold mass. The caller
// expands the states first (src/latency/uniformChain.ts writes their records into this memory).

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.

import { ld, st, ldi, sti } from './memory';

let gMass: f64 = 0;
let gDropped: f64 = 0;
let gWork: f64 = 0;
let gTodo: i32 = 0;

/** What the steps summed: 0 the mass after the last step, 1 the mass dropped in all, 2 the moves stepped in all. */
export function uniformSum(which: i32): f64 {
  return which == 0 ? gMass : which == 1 ? gDropped : gWork;
}

/** How many states the last step listed in `todo`. */
export function uniformTodo(): i32 {
  return gTodo;
}

/** Zeroes the running sums (a new run). */
export function uniformReset(): void {
  gMass = 0;
  gDropped = 0;
  gWork = 0;
}

/**
 * Steps the curLen states listed in cur (their mass in u, emptied) into v, listing the states
 * that get mass in next; returns how many. A state's record rec[i·stride] is its row in `table`
 * plus 1, then its slots' targets plus 1 (0: no move); a row is the stay probability, then the
 * slots'. Mass under dropBelow is dropped, not stepped. A zero (underflowed) share is skipped:
 * it would list its target without marking it, and again later. The states of next that are worth
 * stepping (at least dropBelow) and not expanded yet are listed in `todo` (uniformTodo: how many),
 * for the caller to expand before the next step.
 */
export function uniformStep(rec: usize, table: usize, u: usize, v: usize, cur: usize, next: usize, todo: usize, curLen: i32, stride: i32, slots: i32, dropBelow: f64): i32 {
  const width = slots + 1;
  let nextLen = 0;
  let dropped = gDropped;
  let work = gWork;
  for (let q = 0; q < curLen; q++) {
    const i = ldi(cur, q);
    const x = ld(u, i);
    st(u, i, 0);
    if (x < dropBelow) {
      dropped += x;
      continue;
    }
    const at = i * stride;
    const row = (ldi(rec, at) - 1) * width;
    const kept = x * ld(table, row);
    if (kept > 0) {
      const y = ld(v, i);
      if (y == 0) {
        sti(next, nextLen, i);
        nextLen++;
      }
      st(v, i, y + kept);
    }
    for (let s = 1; s <= slots; s++) {
      const t = ldi(rec, at + s) - 1;
      if (t < 0) continue;
      work += 1;
      const w = x * ld(table, row + s);
      if (!(w > 0)) continue;
      const y = ld(v, t);
      if (y == 0) {
        sti(next, nextLen, t);
        nextLen++;
      }
      st(v, t, y + w);
    }
  }
  let mass: f64 = 0;
  let todoLen = 0;
  for (let q = 0; q < nextLen; q++) {
    const i = ldi(next, q);
    const y = ld(v, i);
    mass += y;
    if (y >= dropBelow && ldi(rec, i * stride) == 0) {
      sti(todo, todoLen, i);
      todoLen++;
    }
  }
  gMass = mass;
  gTodo = todoLen;
  gDropped = dropped;
  gWork = work;
  return nextLen;
}
