import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { CallContext, ServerStreamingHandler, UnaryHandler } from './context.js';
import { toStatus, type StatusOutcome } from './errorTable.js';
import { Code, cancelledByClient, codeName, deadlineExceeded } from './status.js';
import { DETAIL_BOUNDS, STATUS_DETAILS_KEY, failureTrailers, truncateUtf8 } from './statusDetails.js';
import type { Terminator } from './terminator.js';
import { checkDecoded } from './malformed.js';

/** How close to its deadline a cancelled call counts as having hit the deadline. */
const DEADLINE_SLACK_MS = 250;

/** The call shapes served, as go-grpc-prometheus names them in `grpc_type`. */
export type GrpcType = 'unary' | 'server_stream';

/** How a call ended: the status it really ended with and the messages written to the client. */
export interface CallEnd {
  readonly rpc: string;
  readonly type: GrpcType;
  /** Status code number (grpc's). */
  readonly code: number;
  readonly seconds: number;
  readonly messagesSent: number;
}

/** Told about every call (the metrics registry listens here). */
export interface CallObserver {
  onCallStart?(rpc: string, type: GrpcType): void;
  onMessageSent?(rpc: string, type: GrpcType): void;
  onCallEnd(end: CallEnd): void;
}

export interface AdapterDeps {
  readonly log: Logger;
  readonly terminator: Terminator;
  readonly observer: CallObserver;
}

type AnyCall = grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
let calls = 0;

interface LiveContext {
  readonly ctx: CallContext;
  /** Counts one message written to the client (log line `messagesSent`, grpc_server_msg_sent_total). */
  sent(): void;
  /** Ends the call's bookkeeping: log line, metrics, terminator, timers. */
  finish(outcome: StatusOutcome | undefined, err?: unknown): void;
}

/**
 * One context per call, as in nice-grpc's createCallContext: its own AbortController,
 * aborted with a ServiceError reason when the client cancels, when the deadline passes
 * (our own timer, so the work stops even before grpc-js notices) or on shutdown.
 */
function openContext(rpc: string, type: GrpcType, call: AnyCall, deps: AdapterDeps): LiveContext {
  const started = performance.now();
  deps.observer.onCallStart?.(rpc, type);
  const controller = new AbortController();
  const metadata = new Map<string, string>();
  for (const [k, v] of Object.entries(call.metadata.getMap())) if (typeof v === 'string') metadata.set(k, v);
  const given = metadata.get('x-request-id');
  const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
  const log = deps.log.child({ rpc, requestId });
  const d = call.getDeadline();
  const deadline = d instanceof Date ? d.getTime() : Number.isFinite(d) ? Number(d) : Infinity;
  // grpc-js ends a call at its deadline itself, which also reads as 'cancelled': tell the two apart.
  // The server's deadline is the client's timeout counted from receipt, so it lags the client's by
  // the transit time (tens of ms on a loaded host): a cancel that close to it is the deadline.
  const onCancel = (): void => controller.abort(Date.now() >= deadline - DEADLINE_SLACK_MS ? deadlineExceeded() : cancelledByClient());
  call.on('cancelled', onCancel);
  const timer = Number.isFinite(deadline)
    ? setTimeout(() => controller.abort(deadlineExceeded()), Math.max(0, deadline - Date.now()))
    : undefined;
  const unregister = deps.terminator.register(controller);
  const peer = typeof call.getPeer === 'function' ? call.getPeer() : 'unknown';
  const ctx: CallContext = { signal: controller.signal, log, requestId, callId: `call-${++calls}`, peer, deadline, metadata, facts: {} };
  let finished = false;
  let messagesSent = 0;
  return {
    ctx,
    sent() {
      messagesSent++;
      deps.observer.onMessageSent?.(rpc, type);
    },
    finish(outcome, err) {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      call.removeListener('cancelled', onCancel);
      unregister();
      const seconds = (performance.now() - started) / 1000;
      const number = outcome?.code ?? Code.OK;
      deps.observer.onCallEnd({ rpc, type, code: number, seconds, messagesSent });
      const line = { code: codeName(number), durationMs: Math.round(seconds * 1e4) / 10, messagesSent, ...ctx.facts };
      if (outcome?.internal) log.error({ ...line, err }, 'rpc failed');
      // The details may echo the input: the log line gets the same bound as the trailers (a 15 MB spec once made a 15 MB line).
      else if (outcome) log.info({ ...line, details: truncateUtf8(outcome.details, DETAIL_BOUNDS.message) }, 'rpc finished');
      else log.info(line, 'rpc finished');
    },
  };
}

/**
 * The status a failed call ends with: code and message, the field in `batchwise-field` (as
 * before), and for INVALID_ARGUMENT a google.rpc.Status with a BadRequest naming the field;
 * texts bounded (statusDetails.ts).
 */
function statusObject(o: StatusOutcome): Partial<grpc.StatusObject> {
  const sent = failureTrailers(o.code, o.details, o.field);
  const metadata = new grpc.Metadata();
  if (sent.field) metadata.set('batchwise-field', sent.field);
  if (sent.statusDetails) metadata.set(STATUS_DETAILS_KEY, sent.statusDetails);
  return { code: o.code as number as grpc.status, details: sent.details, metadata };
}

export function adaptUnary<Req, Res>(rpc: string, handler: UnaryHandler<Req, Res>, deps: AdapterDeps): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const live = openContext(rpc, 'unary', call as AnyCall, deps);
    Promise.resolve()
      .then(() => {
        checkDecoded(call.request, rpc);
        return handler(call.request, live.ctx);
      })
      .then(
      (res) => {
        live.sent();
        live.finish(undefined);
        callback(null, res);
      },
      (err: unknown) => {
        const outcome = toStatus(err, live.ctx.signal);
        live.finish(outcome, err);
        callback(statusObject(outcome));
      },
    );
  };
}

/**
 * Server streaming as in nice-grpc's handleServerStreamingCall: the handler is an async
 * generator; each message is written and, when `write` says the buffer is full, the
 * generator is held until 'drain' (backpressure) or the call ends. A stream whose signal
 * fired never ends OK, even when the generator returns quietly (an executor that stops on
 * the abort): it ends with the signal's status (CANCELLED, DEADLINE_EXCEEDED, UNAVAILABLE).
 */
export function adaptServerStreaming<Req, Res>(
  rpc: string,
  handler: ServerStreamingHandler<Req, Res>,
  deps: AdapterDeps,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const live = openContext(rpc, 'server_stream', call as AnyCall, deps);
    const { signal } = live.ctx;
    const run = async (): Promise<void> => {
      checkDecoded(call.request, rpc);
      const it = handler(call.request, live.ctx);
      try {
        for (;;) {
          const next = await it.next();
          if (next.done || signal.aborted) break;
          const room = call.write(next.value);
          live.sent();
          if (!room) await drained(call, signal);
        }
      } finally {
        // Runs the generator's `finally` (which releases its solve) when we stop early.
        await it.return(undefined);
      }
      if (signal.aborted) throw signal.reason;
    };
    run().then(
      () => {
        live.finish(undefined);
        call.end();
      },
      (err: unknown) => {
        const outcome = toStatus(err, signal);
        live.finish(outcome, err);
        // grpc-js turns an 'error' event into the call's final status (after pending writes).
        call.emit('error', statusObject(outcome));
      },
    );
  };
}

function drained(call: grpc.ServerWritableStream<unknown, unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      call.removeListener('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    call.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
