/**
 * Entry of a pool worker thread: runs one job at a time from JOBS, posts throttled
 * progress, and aborts the running job when asked (the solvers see the signal within one
 * 20 ms slice, so the worker is free again almost at once).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { JOBS, type JobKind } from './jobs.js';
import { toWire, type FromWorker, type ToWorker } from './wire.js';

const port = parentPort;
if (!port) throw new Error('worker.ts must run in a worker thread');

const running = new Map<number, { controller: AbortController; abortedAt?: number }>();

function post(m: FromWorker, transfer?: ArrayBuffer[]): void {
  port!.postMessage(m, transfer ?? []);
}

async function runJob(id: number, kind: string, payload: unknown): Promise<void> {
  const entry: { controller: AbortController; abortedAt?: number } = { controller: new AbortController() };
  running.set(id, entry);
  try {
    if (!(kind in JOBS)) throw new Error(`unknown job kind ${JSON.stringify(kind)}`);
    const fn = JOBS[kind as JobKind] as (p: unknown, io: { signal: AbortSignal; progress(p: unknown): void }) => Promise<{ result: unknown; transfer?: ArrayBuffer[] }>;
    const out = await fn(payload, { signal: entry.controller.signal, progress: (p) => post({ type: 'progress', id, payload: p }) });
    post({ type: 'done', id, payload: out.result }, out.transfer);
  } catch (e) {
    const abortLatencyMs = entry.abortedAt !== undefined ? performance.now() - entry.abortedAt : undefined;
    post({ type: 'failed', id, error: toWire(e), ...(abortLatencyMs !== undefined ? { abortLatencyMs } : {}) });
  } finally {
    running.delete(id);
  }
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'job') void runJob(m.id, m.kind, m.payload);
  else if (m.type === 'abort') {
    const entry = running.get(m.id);
    if (entry && !entry.controller.signal.aborted) {
      entry.abortedAt = performance.now();
      entry.controller.abort();
    }
  }
});

// Optional modules to load first, e.g. one that registers a GPU provider in this thread.
const setup = (workerData as { setupModules?: string[] } | undefined)?.setupModules ?? [];
for (const url of setup) await import(url);
post({ type: 'ready' });
