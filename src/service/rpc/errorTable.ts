import { AbortError, LimitError, ScenarioError } from '../../model/errors.js';
import { Code, ServiceError, type CodeNumber } from './status.js';

/** What a failed call ends with. `internal` marks errors whose stack belongs in the server log only. */
export interface StatusOutcome {
  readonly code: CodeNumber;
  readonly details: string;
  readonly field?: string;
  readonly internal: boolean;
}

const GENERIC_DETAILS = 'internal error (the server log has the details)';

/**
 * The one table from errors to statuses:
 *   ServiceError              → its own code
 *   ScenarioError, LimitError → INVALID_ARGUMENT, "field.path: reason" (+ prefix, e.g. `scenario.`)
 *   AbortError / aborted call → the reason the call's signal carries (CANCELLED, DEADLINE_EXCEEDED,
 *                               UNAVAILABLE on shutdown), CANCELLED when it carries none
 *   anything else             → INTERNAL with a generic message (never the stack)
 */
export function toStatus(err: unknown, signal?: AbortSignal, fieldPrefix = ''): StatusOutcome {
  if (err instanceof ServiceError) return { code: err.code, details: err.details, field: err.field, internal: false };
  if (err instanceof ScenarioError || err instanceof LimitError) {
    const field = qualify(fieldPrefix, err.field);
    return { code: Code.INVALID_ARGUMENT, details: `${field}: ${err.reason}`, field, internal: false };
  }
  if (err instanceof AbortError || isDomAbort(err) || signal?.aborted) {
    const reason: unknown = signal?.reason;
    if (reason instanceof ServiceError) return { code: reason.code, details: reason.details, internal: false };
    return { code: Code.CANCELLED, details: 'the operation was cancelled', internal: false };
  }
  return { code: Code.INTERNAL, details: GENERIC_DETAILS, internal: true };
}

/** Prefixes a scenario field path with where the scenario sits in the request. */
export function qualify(prefix: string, field: string): string {
  if (!prefix) return field;
  if (field === 'scenario' || field === '') return prefix.replace(/\.$/, '');
  return `${prefix}${field}`;
}

function isDomAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** A ScenarioError / LimitError with its field path made absolute (`prefix` + field); other errors unchanged. */
export function requalify(prefix: string, e: unknown): unknown {
  if (e instanceof ScenarioError || e instanceof LimitError) {
    const field = qualify(prefix, e.field);
    return new ServiceError(Code.INVALID_ARGUMENT, `${field}: ${e.reason}`, field);
  }
  return e;
}

/**
 * Runs request parsing with field paths made absolute: a ScenarioError on `arrivalRate`
 * inside the request's `scenario` becomes INVALID_ARGUMENT on `scenario.arrivalRate`.
 */
export function inField<T>(prefix: string, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    throw requalify(prefix, e);
  }
}
