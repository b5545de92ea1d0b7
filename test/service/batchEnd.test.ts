import { describe, expect, it } from 'vitest';
import { RemoteError } from '../../src/service/client.js';
import type { ScenarioResult } from '../../src/service/messages.js';
import { specScenario } from '../helpers/scenarios.js';
import { longScenario, sample, startHarness, type Harness } from './support/harness.js';

/**
 * A batch that stops early ends with the status that stopped it, and the server's log line
 * and metrics count what was really sent. The list: CHEAP quick policy-iteration scenarios,
 * which one worker solves first (their shape sorts first), then one solve that runs for
 * minutes, so the batch is always cut while that one runs and every result written before
 * the cut has reached the client.
 */
const CHEAP = 6;
const list = {
  scenarios: [...Array.from({ length: CHEAP }, (_, i) => specScenario(400 + 300 * i, 1e-4)), longScenario()],
};

interface Outcome {
  readonly received: ScenarioResult[];
  readonly error: unknown;
}

function openBatch(h: Harness, opts: { deadline?: number; signal?: AbortSignal } = {}) {
  const received: ScenarioResult[] = [];
  let onCheap!: () => void;
  const cheapDone = new Promise<void>((r) => (onCheap = r));
  const ended: Promise<Outcome> = (async () => {
    try {
      for await (const r of h.client().solveBatch({ list }, opts)) {
        received.push(r);
        if (received.length === CHEAP) onCheap();
      }
      return { received, error: undefined };
    } catch (error) {
      return { received, error };
    }
  })();
  return { received, cheapDone, ended };
}

async function metricsText(h: Harness): Promise<string> {
  return h.server.metrics.registry.metrics();
}

function batchLine(h: Harness): Record<string, unknown> | undefined {
  return h.lines.find((l) => l.rpc === 'SolveBatch' && l.msg === 'rpc finished');
}

const labels = (code?: string) => ({ grpc_service: 'batchwise.v1.BatchingPolicy', grpc_method: 'SolveBatch', grpc_type: 'server_stream', ...(code ? { grpc_code: code } : {}) });

describe('a SolveBatch stream that ends early ends with the status that ended it', () => {
  it('deadline: DEADLINE_EXCEEDED at the client, in the log line and in grpc_server_handled_total, with the true count sent', async () => {
    const h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
    try {
      const call = openBatch(h, { deadline: Date.now() + 6000 });
      const out = await call.ended;
      expect(out.error).toBeInstanceOf(RemoteError);
      expect((out.error as RemoteError).codeName).toBe('DEADLINE_EXCEEDED');
      const sent = out.received.length;
      expect(sent).toBeLessThan(CHEAP + 1); // the long solve never finished
      await h.server.pool.ready();
      while (!batchLine(h)) await new Promise((r) => setTimeout(r, 20));
      const line = batchLine(h)!;
      expect(line).toMatchObject({ code: 'DEADLINE_EXCEEDED', scenarios: CHEAP + 1, messagesSent: sent, sent, solved: sent, unanswered: CHEAP + 1 - sent });
      const text = await metricsText(h);
      expect(sample(text, 'grpc_server_handled_total', labels('DeadlineExceeded'))).toBe(1);
      expect(sample(text, 'grpc_server_handled_total', labels('OK'))).toBe(0);
      expect(sample(text, 'grpc_server_msg_sent_total', labels())).toBe(sent);
      expect(sample(text, 'grpc_server_started_total', labels())).toBe(1);
      expect(sample(text, 'grpc_server_handling_seconds_count', labels())).toBe(1);
      console.info(`deadline cut: ${sent} of ${CHEAP + 1} results sent and received, log line ${JSON.stringify({ code: line.code, sent: line.sent, unanswered: line.unanswered })}`);
    } finally {
      await h.close();
    }
  });

  it('client cancel: CANCELLED in the log line and metrics, the results sent counted', async () => {
    const h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
    try {
      const controller = new AbortController();
      const call = openBatch(h, { signal: controller.signal });
      await call.cheapDone;
      controller.abort();
      const out = await call.ended;
      expect(out.received).toHaveLength(CHEAP);
      while (!batchLine(h)) await new Promise((r) => setTimeout(r, 20));
      expect(batchLine(h)).toMatchObject({ code: 'CANCELLED', messagesSent: CHEAP, sent: CHEAP, unanswered: 1 });
      const text = await metricsText(h);
      expect(sample(text, 'grpc_server_handled_total', labels('Canceled'))).toBe(1);
      expect(sample(text, 'grpc_server_msg_sent_total', labels())).toBe(CHEAP);
    } finally {
      await h.close();
    }
  });

  it('server shutdown: the client gets UNAVAILABLE, not OK with a result missing', async () => {
    const h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
    const call = openBatch(h);
    await call.cheapDone;
    await h.server.shutdown({ graceMs: 0 });
    const out = await call.ended;
    expect(out.received).toHaveLength(CHEAP);
    expect(out.error).toBeInstanceOf(RemoteError);
    expect((out.error as RemoteError).codeName).toBe('UNAVAILABLE');
    expect((out.error as RemoteError).details).toBe('Server shutting down');
    expect(batchLine(h)).toMatchObject({ code: 'UNAVAILABLE', messagesSent: CHEAP, sent: CHEAP, unanswered: 1 });
    const text = await metricsText(h);
    expect(sample(text, 'grpc_server_handled_total', labels('Unavailable'))).toBe(1);
    await h.close();
  });
});
