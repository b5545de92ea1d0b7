import { estimateQueue } from '../../model/queueEstimate.js';
import type { ValidatedScenario } from '../../model/scenario.js';
import { Code, ServiceError } from '../rpc/status.js';

/** What one scenario's solve is estimated to hold, before any of it is built. */
export interface WorkEstimate {
  /** States (S + 1)·M: the explicit S, or an estimate of the automatic one. */
  readonly states: number;
  /** Band width of the model's chain (largest jumps down and up, plus one). */
  readonly band: number;
  /**
   * The entries every sweep and evaluation works through, as compile.ts charges them
   * (model/chainEntries.ts): states × band, or for one phase and exponential service the
   * geometric reduction's (about states × 3B, whatever the band).
   */
  readonly entries: number;
}

/**
 * The size of a scenario's model, estimated in milliseconds and without solving
 * (model/queueEstimate.ts): S explicit, or where the greedy policy's queue has (almost) no mass
 * left (its geometric tail at batch epochs); the band from the arrival-count law of the shortest
 * and longest batch at the fastest phase rate; the entries as compile.ts charges them
 * (model/chainEntries.ts: the band, or for one phase with exponential service whose count laws
 * are long enough for the cascade the geometric reduction's). The solve itself may still grow S
 * (its tail check); maxStates bounds that.
 */
export function estimateWork(s: ValidatedScenario): WorkEstimate {
  const e = estimateQueue(s.params, 1, s.solver.maxQueue);
  return { states: e.states, band: e.band, entries: e.entries };
}

/** How the entries are counted, as compile.ts charges them (model/chainEntries.ts). */
const CHARGE = 'states × band width, or for one phase with exponential service the geometric reduction’s about 3B a state';

/** Refuses a call whose estimated work passes the server's bound, before any of it starts. */
export function checkWork(entries: number, maxWorkPerCall: number, field: string, what: string): void {
  if (entries > maxWorkPerCall) {
    throw new ServiceError(
      Code.RESOURCE_EXHAUSTED,
      `${field}: ${what} an estimated ${entries.toExponential(3)} chain entries (${CHARGE}${field === 'grid' || field.startsWith('list') ? ', summed over the scenarios' : ''}), above this server's maxWorkPerCall = ${maxWorkPerCall.toExponential(3)}`,
      field,
    );
  }
}
