import { AbortError, LimitError, ScenarioError, type LimitFacts } from '../../model/errors.js';
import { ServiceError, type CodeNumber } from '../rpc/status.js';

/** Messages between the pool (main thread) and a worker. Errors cross as plain data. */
export type ToWorker = { type: 'job'; id: number; kind: string; payload: unknown } | { type: 'abort'; id: number };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress'; id: number; payload: unknown }
  | { type: 'done'; id: number; payload: unknown }
  | { type: 'failed'; id: number; error: WireError; abortLatencyMs?: number };

export interface WireError {
  readonly kind: 'scenario' | 'limit' | 'abort' | 'service' | 'internal';
  readonly message: string;
  readonly field?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly stack?: string;
  /** A LimitError's facts (bound, excess, admissibleRate). */
  readonly facts?: LimitFacts;
}

export function toWire(e: unknown): WireError {
  if (e instanceof ScenarioError) return { kind: 'scenario', message: e.message, field: e.field, reason: e.reason };
  if (e instanceof LimitError) return { kind: 'limit', message: e.message, field: e.field, reason: e.reason, facts: e.facts };
  if (e instanceof AbortError) return { kind: 'abort', message: e.message };
  if (e instanceof ServiceError) return { kind: 'service', message: e.details, code: e.code, field: e.field };
  const err = e instanceof Error ? e : new Error(String(e));
  return { kind: 'internal', message: err.message, stack: err.stack };
}

/** Rebuilds the typed error so the status table treats it as if it had been thrown here. */
export function fromWire(w: WireError): Error {
  switch (w.kind) {
    case 'scenario':
      return new ScenarioError(w.field ?? 'scenario', w.reason ?? w.message);
    case 'limit':
      return new LimitError(w.field ?? 'scenario', w.reason ?? w.message, w.facts);
    case 'abort':
      return new AbortError(w.message);
    case 'service':
      return new ServiceError((w.code ?? 13) as CodeNumber, w.message, w.field);
    default: {
      const e = new Error(`worker: ${w.message}`);
      if (w.stack) e.stack = w.stack;
      return e;
    }
  }
}
