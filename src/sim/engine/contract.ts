import type { SimPolicy } from '../policies/types.js';

/**
 * The errors of a policy that breaks the SimPolicy contract (src/sim/policies/types.ts). The
 * engine checks the contract inline at each question it asks (run.ts) and builds the message
 * here, out of the hot loop.
 */

export function batchError(policy: SimPolicy, b: number, q: number, B: number): Error {
  return new Error(`policy ${policy.name} chose a batch of ${b} with ${q} waiting (max batch size ${B})`);
}

export function wakeError(policy: SimPolicy, now: number, wake: number): Error {
  return new Error(`policy ${policy.name} waited at t = ${now} s but asked to wake at ${wake} s, not later`);
}
