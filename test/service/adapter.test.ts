import { EventEmitter } from 'node:events';
import { setImmediate as tick } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { adaptServerStreaming, type CallEnd } from '../../src/service/rpc/adapter.js';
import type { CallContext } from '../../src/service/rpc/context.js';
import { codeName } from '../../src/service/rpc/status.js';
import { Terminator } from '../../src/service/rpc/terminator.js';

/** Enough of a grpc-js server stream to drive the adapter: `write` reports a full buffer while `full`. */
class FakeStream extends EventEmitter {
  readonly metadata = new grpc.Metadata();
  readonly writes: unknown[] = [];
  full = true;
  ended = false;
  status: unknown;
  constructor(readonly request: unknown) {
    super();
    this.on('error', (s) => (this.status = s));
  }
  write(m: unknown): boolean {
    this.writes.push(m);
    return !this.full;
  }
  end(): void {
    this.ended = true;
  }
  getDeadline(): number {
    return Infinity;
  }
}

function deps() {
  const ends: string[] = [];
  const sent: number[] = [];
  const terminator = new Terminator();
  const observer = {
    onCallEnd: (e: CallEnd) => {
      ends.push(`${e.rpc} ${codeName(e.code)}`);
      sent.push(e.messagesSent);
    },
  };
  return { ends, sent, terminator, deps: { log: pino({ level: 'silent' }), terminator, observer } };
}

describe('server-streaming adapter', () => {
  it('holds the generator while the transport buffer is full and resumes on drain', async () => {
    let produced = 0;
    async function* handler(): AsyncGenerator<number, void, undefined> {
      for (let i = 1; i <= 3; i++) {
        produced = i;
        yield i;
      }
    }
    const d = deps();
    const call = new FakeStream({});
    adaptServerStreaming('Test', handler, d.deps)(call as unknown as grpc.ServerWritableStream<unknown, number>);
    for (let i = 0; i < 10; i++) await tick();
    expect(call.writes).toEqual([1]);
    expect(produced).toBe(1); // the next message is not even produced before 'drain'
    call.emit('drain');
    for (let i = 0; i < 10; i++) await tick();
    expect(call.writes).toEqual([1, 2]);
    call.full = false;
    call.emit('drain');
    for (let i = 0; i < 10; i++) await tick();
    expect(call.writes).toEqual([1, 2, 3]);
    expect(call.ended).toBe(true);
    expect(d.ends).toEqual(['Test OK']);
  });

  it('a client cancel aborts the context signal, runs the generator’s finally and ends CANCELLED', async () => {
    let signal: AbortSignal | undefined;
    let cleaned = false;
    async function* handler(_req: unknown, ctx: CallContext): AsyncGenerator<number, void, undefined> {
      signal = ctx.signal;
      try {
        yield 1;
        await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
      } finally {
        cleaned = true;
      }
    }
    const d = deps();
    const call = new FakeStream({});
    call.full = false;
    adaptServerStreaming('Test', handler, d.deps)(call as unknown as grpc.ServerWritableStream<unknown, number>);
    for (let i = 0; i < 10; i++) await tick();
    expect(signal?.aborted).toBe(false);
    call.emit('cancelled');
    for (let i = 0; i < 10; i++) await tick();
    expect(signal?.aborted).toBe(true);
    expect(cleaned).toBe(true);
    expect(d.ends).toEqual(['Test CANCELLED']);
    expect(call.status).toMatchObject({ code: grpc.status.CANCELLED });
  });

  it('a generator that returns quietly once its signal fired ends with that status, counting only what was written', async () => {
    // The shape of a batch whose executors stop on the abort instead of throwing.
    async function* handler(_req: unknown, ctx: CallContext): AsyncGenerator<number, void, undefined> {
      yield 1;
      yield 2;
      await new Promise((r) => ctx.signal.addEventListener('abort', r));
    }
    const d = deps();
    const call = new FakeStream({});
    call.full = false;
    adaptServerStreaming('Test', handler, d.deps)(call as unknown as grpc.ServerWritableStream<unknown, number>);
    for (let i = 0; i < 10; i++) await tick();
    d.terminator.terminate(); // shutdown: UNAVAILABLE
    for (let i = 0; i < 10; i++) await tick();
    expect(call.writes).toEqual([1, 2]);
    expect(call.ended).toBe(false);
    expect(call.status).toMatchObject({ code: grpc.status.UNAVAILABLE, details: 'Server shutting down' });
    expect(d.ends).toEqual(['Test UNAVAILABLE']);
    expect(d.sent).toEqual([2]);
  });
});
