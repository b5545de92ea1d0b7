import type { Logger } from 'pino';

/**
 * What a handler gets besides its request: no grpc-js types, so handlers can be tested
 * without a transport and new RPCs need not learn the adapter.
 */
export interface CallContext {
  /** Aborted when the client cancels, the deadline passes, or the server shuts down; the reason is a ServiceError. */
  readonly signal: AbortSignal;
  /** A child logger bound to this call (`rpc`, `requestId`). */
  readonly log: Logger;
  readonly requestId: string;
  /** Unique per call in this server: the call's flow in the pool's fair queue. */
  readonly callId: string;
  /** The client connection (gRPC's peer, e.g. `127.0.0.1:53514`; `unknown` if the transport does not say). */
  readonly peer: string;
  /** Absolute deadline (ms since the epoch), or Infinity. */
  readonly deadline: number;
  /** Request metadata, first value of each key (binary keys left out). */
  readonly metadata: ReadonlyMap<string, string>;
  /**
   * Facts for this call's log line (scenario size, states, cache use). Handlers add to it;
   * keys are ours, values come from the work done, never raw client strings.
   */
  readonly facts: Record<string, string | number | boolean>;
}

/** A unary RPC: one request, one response. */
export type UnaryHandler<Req, Res> = (request: Req, ctx: CallContext) => Promise<Res>;

/** A server-streaming RPC: an async generator; the adapter writes each yielded message with backpressure. */
export type ServerStreamingHandler<Req, Res> = (request: Req, ctx: CallContext) => AsyncGenerator<Res, void, undefined>;
