import type { RequestRing } from './ring.js';
import type { ServiceLaw } from './types.js';

/**
 * Mixed batching: one FIFO over the classes of a server, kept as one ring per class
 * (rings[base + c]) and merged by arrival time when a batch forms.
 */

/** Arrival time of the oldest request waiting at the server, of any class (Infinity: none). */
export function oldestHead(rings: readonly RequestRing[], base: number, C: number): number {
  let oldest = Infinity;
  for (let c = 0; c < C; c++) {
    const ring = rings[base + c];
    if (ring.count > 0 && ring.at(0) < oldest) oldest = ring.at(0);
  }
  return oldest;
}

/** counts[c] = how many of the b oldest waiting requests (any class) are of class c. */
export function takeOldest(rings: readonly RequestRing[], base: number, C: number, b: number, counts: Int32Array): void {
  counts.fill(0);
  for (let i = 0; i < b; i++) {
    let pick = -1;
    let t = Infinity;
    for (let c = 0; c < C; c++) {
      const ring = rings[base + c];
      if (counts[c] < ring.count) {
        const x = ring.at(counts[c]);
        if (x < t) {
          t = x;
          pick = c;
        }
      }
    }
    counts[pick]++;
  }
}

/** The class in the batch (counts[c] > 0) slowest at this size: the batch runs as long as it needs. */
export function slowestClass(service: readonly ServiceLaw[], counts: Int32Array, size: number): number {
  let slow = 0;
  let worst = -1;
  for (let c = 0; c < counts.length; c++) {
    if (counts[c] > 0 && service[c].meanService[size] > worst) {
      worst = service[c].meanService[size];
      slow = c;
    }
  }
  return slow;
}

/** The part of a mixed batch's time T that class c's requests wait for the slower class: T·(1 − l_c(size)/l_slow(size)). */
export function slowerShare(service: readonly ServiceLaw[], c: number, slow: number, size: number, T: number): number {
  return T * (1 - service[c].meanService[size] / service[slow].meanService[size]);
}
