/**
 * Typed errors of the model layer. Each names the offending field by its JSON path
 * (e.g. `serviceTime.table.values[3]`) so that the CLI and the gRPC service can report
 * it verbatim (the service maps ScenarioError to INVALID_ARGUMENT).
 */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  constructor(
    /** JSON path of the offending field, e.g. `objective.powerWeight`. */
    readonly field: string,
    /** What is wrong, with the bound that was violated. */
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** What a LimitError knows of the bound that bit, beyond its words (all optional). */
export interface LimitFacts {
  /** The bound exceeded, by its name in LIMITS (`maxBandEntries`, `maxQueue`) or the server's (`maxStates`). */
  readonly bound?: string;
  /** How far past it: what the request needs / what the bound allows (> 1; a lower estimate where the need is only known to exceed a size). */
  readonly excess?: number;
  /**
   * For a refusal driven by the load: an estimate of the largest arrival rate (under MMPP the mean
   * rate, every phase's rate scaled in proportion) at which the same scenario stays within the bound.
   */
  readonly admissibleRate?: number;
}

/** A request that is valid but exceeds a documented resource bound (states, memory, work). */
export class LimitError extends Error {
  override readonly name = 'LimitError';
  readonly bound?: string;
  readonly excess?: number;
  readonly admissibleRate?: number;
  constructor(
    readonly field: string,
    readonly reason: string,
    facts: LimitFacts = {},
  ) {
    super(`${field}: ${reason}`);
    if (facts.bound !== undefined) this.bound = facts.bound;
    if (facts.excess !== undefined) this.excess = facts.excess;
    if (facts.admissibleRate !== undefined) this.admissibleRate = facts.admissibleRate;
  }

  /** The facts, to carry over to a LimitError rebuilt around this one (another field or reason). */
  get facts(): LimitFacts {
    return { bound: this.bound, excess: this.excess, admissibleRate: this.admissibleRate };
  }
}

/** Raised when a solve or evaluation is aborted through its AbortSignal. */
export class AbortError extends Error {
  override readonly name = 'AbortError';
  constructor(reason = 'the operation was aborted') {
    super(reason);
  }
}

let abortPoll: (() => void) | undefined;

/**
 * Installs a synchronous check that every throwIfAborted runs first. A pool worker thread
 * installs one that reads the cancel flag the main thread writes to shared memory and aborts
 * the running job's controller: a message could only arrive when the event loop turns, which a
 * long synchronous step (one exact evaluation of a large chain) does not let it do.
 */
export function setAbortPoll(poll: (() => void) | undefined): void {
  abortPoll = poll;
}

/**
 * Throws AbortError when the signal has fired. Cheap enough to call between sweeps and every few
 * hundred states inside one (the long loops do), so a cancel reaches a solve within milliseconds.
 */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal && abortPoll) abortPoll();
  if (signal?.aborted) {
    const r: unknown = signal.reason;
    throw new AbortError(r instanceof Error ? r.message : typeof r === 'string' ? r : undefined);
  }
}
