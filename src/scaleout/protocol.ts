import { deserialize, serialize } from 'node:v8';
import { LimitError, ScenarioError, type LimitFacts } from '../model/errors.js';
import type { SolveResult } from '../solve/result.js';

/**
 * What servers and workers agree on in Redis. Everything a batch writes lives under
 * `batchwise:batch:<id>:*` and expires, so an abandoned batch leaves nothing behind.
 */
export const QUEUE_NAME = 'batchwise-chunks';
export const BATCH_KEY_TTL_S = 3600;


/**
 * Servers and workers sharing a namespace share a queue and a cache (default `batchwise`;
 * it is also BullMQ's key prefix). Separate namespaces let deployments, or tests, share a Redis.
 */
export const DEFAULT_NAMESPACE = 'batchwise';

export const keys = {
  /** Hash index → encoded outcome; written once per index (HSETNX), so retries cannot duplicate. */
  results: (ns: string, batchId: string) => `${ns}:batch:${batchId}:results`,
  /** List of indices whose outcome was just written, in landing order; the server pops it. */
  done: (ns: string, batchId: string) => `${ns}:batch:${batchId}:done`,
  /**
   * Set by the server before it enqueues the batch; gone means Redis lost the batch's state
   * (restarted without persistence, flushed, evicted), and with it the chunks still queued.
   */
  alive: (ns: string, batchId: string) => `${ns}:batch:${batchId}:alive`,
  /** Present once the batch was cancelled: workers skip what is left of its chunks. */
  cancelled: (ns: string, batchId: string) => `${ns}:batch:${batchId}:cancelled`,
} as const;

export const jobId = (batchId: string, chunk: number): string => `${batchId}-${chunk}`;

export interface ChunkItem {
  readonly index: number;
  /** Canonical scenario key: the shared cache's key. */
  readonly key: string;
  /** The scenario as the request carried it (decoded proto form); the worker validates it again. */
  readonly input: unknown;
}

/** One BullMQ job: neighbouring scenarios, solved in order so each warm-starts the next. */
export interface ChunkJob {
  readonly batchId: string;
  readonly chunk: number;
  readonly items: readonly ChunkItem[];
  readonly warmStarts: boolean;
  readonly maxStates: number;
  /** Wall clock at enqueue (ms), for the chunk-latency metric. */
  readonly enqueuedAt: number;
}

export interface WireError {
  readonly kind: 'scenario' | 'limit' | 'other';
  readonly field: string;
  readonly reason: string;
  /** A LimitError's facts (bound, excess, admissibleRate). */
  readonly facts?: LimitFacts;
}

export type WireOutcome =
  | {
      readonly ok: true;
      readonly result: SolveResult;
      readonly warmStart: { readonly values: Float64Array; readonly policy: Int32Array };
      readonly warmStarted: boolean;
      /** Solve attempt of the chunk (> 0: after a stalled worker's lock expired). */
      readonly retry: boolean;
    }
  | { readonly ok: false; readonly error: WireError; readonly retry: boolean };

/**
 * V8's serializer keeps typed arrays, NaN and ±Infinity exactly, which JSON does not;
 * Redis holds the bytes. Only our own processes write these keys.
 */
export const encode = (o: WireOutcome): Buffer => serialize(o);
export const decode = (b: Buffer): WireOutcome => deserialize(b) as WireOutcome;

export function toWireError(e: unknown): WireError {
  if (e instanceof ScenarioError) return { kind: 'scenario', field: e.field, reason: e.reason };
  if (e instanceof LimitError) return { kind: 'limit', field: e.field, reason: e.reason, facts: e.facts };
  return { kind: 'other', field: '', reason: e instanceof Error ? e.message : String(e) };
}

/** The typed error again, so the service's error table gives the same status as a local solve. */
export function fromWireError(w: WireError): Error {
  if (w.kind === 'scenario') return new ScenarioError(w.field, w.reason);
  if (w.kind === 'limit') return new LimitError(w.field, w.reason, w.facts);
  return new Error(`worker: ${w.reason}`);
}

/**
 * Writes one outcome if its index has none yet, and only then announces it: a chunk run twice
 * (a worker killed mid-chunk, its lock expired) neither overwrites nor re-announces an index.
 * Returns -1 when the batch was cancelled (KEYS[3] exists): the worker leaves the chunk.
 */
export const WRITE_ONCE_LUA = `
if redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('RPUSH', KEYS[2], ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  return 1
end
return 0`;
