import type { SimPolicy } from '../policies/types.js';

/**
 * The SimPolicy contract (src/sim/policies/types.ts), checked at each question the engine
 * asks, so that a broken policy fails with its name instead of corrupting a run. The messages
 * are built out of line: the checks sit on the hot path and stay small enough to inline.
 */

/** The batch `policy` serves now from q waiting (0 = wait); B is the server's max batch size. */
export function askBatch(policy: SimPolicy, q: number, now: number, oldest: number, B: number): number {
  const b = policy.decide(q, now, oldest);
  if (b !== 0 && !(b >= 1 && b <= q && b <= B && Number.isInteger(b))) throw badBatch(policy, b, q, B);
  return b;
}

/** When a waiting `policy` decides again: later than now, or Infinity (at the next arrival). */
export function askWake(policy: SimPolicy, q: number, now: number, oldest: number): number {
  const wake = policy.wakeAt(q, now, oldest);
  if (!(wake > now) && wake !== Infinity) throw badWake(policy, now, wake);
  return wake;
}

function badBatch(policy: SimPolicy, b: number, q: number, B: number): Error {
  return new Error(`policy ${policy.name} chose a batch of ${b} with ${q} waiting (max batch size ${B})`);
}

function badWake(policy: SimPolicy, now: number, wake: number): Error {
  return new Error(`policy ${policy.name} waited at t = ${now} s but asked to wake at ${wake} s, not later`);
}
