/**
 * Transport-free status codes and the one error type a handler throws on purpose.
 * The numbers are gRPC's (they are fixed by the protocol), so handlers never import grpc-js.
 */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

export type CodeName = keyof typeof Code;
export type CodeNumber = (typeof Code)[CodeName];

export function codeName(code: number): string {
  for (const [name, value] of Object.entries(Code)) if (value === code) return name;
  return `CODE_${code}`;
}

/** An error that carries the status it should end its call with. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: CodeNumber,
    readonly details: string,
    /** Field path the error is about, sent in the `batchwise-field` trailer. */
    readonly field?: string,
  ) {
    super(`${codeName(code)}: ${details}`);
  }
}

/** Abort reasons: the call context aborts its signal with one of these, so the table can tell why. */
export const cancelledByClient = (): ServiceError => new ServiceError(Code.CANCELLED, 'the call was cancelled by the client');
export const deadlineExceeded = (): ServiceError => new ServiceError(Code.DEADLINE_EXCEEDED, 'the deadline passed before the work finished');
export const serverShuttingDown = (): ServiceError => new ServiceError(Code.UNAVAILABLE, 'Server shutting down');
