/**
 * Entry of a pool worker thread: runs one job at a time from JOBS, posts throttled
 * progress, and aborts the running job when asked. The ask comes twice: the job's id in a
 * shared Int32Array (the cancel flag), which every throwIfAborted reads synchronously, so a
 * solve in the middle of a long synchronous step sees it within milliseconds; and an `abort`
 * message, for a job waiting on the event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setAbortPoll } from '../../model/errors.js';
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

function abort(id: number): void {
  const entry = running.get(id);
  if (entry && !entry.controller.signal.aborted) {
    entry.abortedAt = performance.now();
    entry.controller.abort();
  }
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'job') void runJob(m.id, m.kind, m.payload);
  else if (m.type === 'abort') abort(m.id);
});

const data = workerData as { setupModules?: string[]; cancelFlag?: Int32Array } | undefined;
const flag = data?.cancelFlag;
if (flag) {
  setAbortPoll(() => {
    const id = Atomics.load(flag, 0);
    if (id !== 0) abort(id);
  });
}

// Optional modules to load first, e.g. one that registers a GPU provider in this thread.
const setup = data?.setupModules ?? [];
for (const url of setup) await import(url);
post({ type: 'ready' });
