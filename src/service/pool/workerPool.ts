import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AbortError } from '../../model/errors.js';
import { Code, ServiceError, serverShuttingDown } from '../rpc/status.js';
import type { JobKind, JobTypes } from './jobs.js';
import { fromWire, type FromWorker, type ToWorker } from './wire.js';

export interface PoolOptions {
  /** Worker threads = jobs that run at once (the service's max concurrent solves). */
  readonly size: number;
  /** Jobs that may wait for a worker before `submit` refuses with RESOURCE_EXHAUSTED. */
  readonly maxQueued: number;
  /** Module URLs each worker imports before its first job (e.g. a GPU provider registration). */
  readonly setupModules?: readonly string[];
  /**
   * How long an aborted job may take to stop by itself before its worker is terminated and
   * replaced (default 100 ms: the service promises a cancelled solve stops within that).
   */
  readonly abortGraceMs?: number;
}

export interface PoolStats {
  readonly size: number;
  readonly busy: number;
  readonly queued: number;
}

export interface JobEnd {
  readonly kind: string;
  readonly outcome: 'ok' | 'failed' | 'aborted';
  readonly seconds: number;
  /** Time from the abort request to the job having stopped. */
  readonly abortLatencyMs?: number;
  /** The job did not stop in time and its worker was terminated (a fresh one replaces it). */
  readonly killed?: boolean;
}

export interface SubmitOptions<P> {
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: P) => void;
  /** Whether the queue bound applies (batches pace themselves and pass false). */
  readonly bounded?: boolean;
}

interface Job {
  readonly id: number;
  readonly kind: string;
  readonly payload: unknown;
  readonly opts: SubmitOptions<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
  settled: boolean;
  started: number;
  abortedAt?: number;
  detach?: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  killTimer?: NodeJS.Timeout;
}

/**
 * A fixed set of worker threads, each running one job at a time, with a bounded FIFO in
 * front. A caller's abort rejects its promise at once; the slot stays busy until the worker
 * confirms the job stopped, and a worker that does not stop within `abortGraceMs` is
 * replaced, so an abort always gives the worker back.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly listeners: { change: Array<(s: PoolStats) => void>; jobEnd: Array<(e: JobEnd) => void> } = { change: [], jobEnd: [] };

  constructor(private readonly opts: PoolOptions) {
    if (!(opts.size >= 1)) throw new RangeError(`pool size must be ≥ 1 (got ${opts.size})`);
    for (let i = 0; i < opts.size; i++) this.slots.push(this.spawn());
  }

  onChange(fn: (s: PoolStats) => void): void {
    this.listeners.change.push(fn);
  }

  onJobEnd(fn: (e: JobEnd) => void): void {
    this.listeners.jobEnd.push(fn);
  }

  stats(): PoolStats {
    return { size: this.slots.length, busy: this.slots.filter((s) => s.job).length, queued: this.queue.length };
  }

  /** Resolves once every worker has loaded (the first job need not wait for module loading). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((s) => (s.ready ? undefined : new Promise<void>((r) => s.worker.once('message', () => r())))));
  }

  submit<K extends JobKind>(kind: K, payload: JobTypes[K]['payload'], opts: SubmitOptions<JobTypes[K]['progress']> = {}): Promise<JobTypes[K]['result']> {
    if (this.closed) return Promise.reject(serverShuttingDown());
    if (opts.signal?.aborted) return Promise.reject(abortErrorOf(opts.signal));
    if (opts.bounded !== false && this.queue.length >= this.opts.maxQueued && !this.slots.some((s) => s.ready && !s.job)) {
      return Promise.reject(
        new ServiceError(Code.RESOURCE_EXHAUSTED, `all ${this.slots.length} solver workers are busy and ${this.queue.length} requests are queued (maxQueuedSolves = ${this.opts.maxQueued}); retry later`),
      );
    }
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, kind, payload, opts: opts as SubmitOptions<unknown>, resolve: resolve as (v: unknown) => void, reject, settled: false, started: 0 };
      if (opts.signal) {
        const signal = opts.signal;
        const onAbort = (): void => this.abort(job, signal);
        signal.addEventListener('abort', onAbort, { once: true });
        job.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /** Rejects queued jobs, aborts running ones and stops every worker. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, undefined, serverShuttingDown());
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.job) this.settle(slot.job, undefined, serverShuttingDown());
        slot.job = undefined;
        clearTimeout(slot.killTimer);
        await slot.worker.terminate();
      }),
    );
    this.changed();
  }

  private spawn(): Slot {
    const slot: Slot = { worker: startWorker(this.opts.setupModules ?? []), ready: false };
    slot.worker.on('message', (m: FromWorker) => this.onMessage(slot, m));
    slot.worker.on('error', (e) => this.onCrash(slot, e));
    slot.worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) this.onCrash(slot, new Error(`worker exited with code ${code}`));
    });
    return slot;
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) break;
      if (!slot.ready || slot.job) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      job.started = performance.now();
      const msg: ToWorker = { type: 'job', id: job.id, kind: job.kind, payload: job.payload };
      slot.worker.postMessage(msg);
    }
    this.changed();
  }

  private abort(job: Job, signal: AbortSignal): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(job, undefined, abortErrorOf(signal));
      this.changed();
      return;
    }
    const slot = this.slots.find((s) => s.job === job);
    if (!slot) return;
    job.abortedAt = performance.now();
    this.settle(job, undefined, abortErrorOf(signal));
    slot.worker.postMessage({ type: 'abort', id: job.id } satisfies ToWorker);
    slot.killTimer = setTimeout(() => this.replace(slot, 'aborted'), this.opts.abortGraceMs ?? 100);
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    if (m.type === 'ready') {
      slot.ready = true;
      this.pump();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== m.id) return;
    if (m.type === 'progress') {
      if (!job.settled) job.opts.onProgress?.(m.payload);
      return;
    }
    clearTimeout(slot.killTimer);
    slot.job = undefined;
    const aborted = job.abortedAt !== undefined;
    const outcome = m.type === 'done' ? 'ok' : aborted ? 'aborted' : 'failed';
    this.emitEnd({
      kind: job.kind,
      outcome,
      seconds: (performance.now() - job.started) / 1000,
      ...(aborted ? { abortLatencyMs: performance.now() - job.abortedAt! } : {}),
    });
    if (m.type === 'done') this.settle(job, m.payload);
    else this.settle(job, undefined, fromWire(m.error));
    this.pump();
  }

  private onCrash(slot: Slot, e: Error): void {
    const job = slot.job;
    if (job) this.settle(job, undefined, e);
    this.replace(slot, job ? 'failed' : undefined);
  }

  /** Terminates a worker (stuck or crashed) and puts a fresh one in its place. */
  private replace(slot: Slot, outcome: JobEnd['outcome'] | undefined): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    const job = slot.job;
    if (job && outcome) {
      this.emitEnd({
        kind: job.kind,
        outcome,
        seconds: (performance.now() - job.started) / 1000,
        killed: true,
        ...(job.abortedAt !== undefined ? { abortLatencyMs: performance.now() - job.abortedAt } : {}),
      });
    }
    clearTimeout(slot.killTimer);
    slot.job = undefined;
    this.slots.splice(i, 1);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    if (!this.closed) {
      this.slots.splice(i, 0, this.spawn());
      this.pump();
    }
  }

  private settle(job: Job, value: unknown, error?: unknown): void {
    if (job.settled) return;
    job.settled = true;
    job.detach?.();
    if (error !== undefined) job.reject(error);
    else job.resolve(value);
  }

  private emitEnd(e: JobEnd): void {
    for (const fn of this.listeners.jobEnd) fn(e);
  }

  private changed(): void {
    const s = this.stats();
    for (const fn of this.listeners.change) fn(s);
  }
}

function abortErrorOf(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error && !(r instanceof DOMException) ? r : new AbortError();
}

/**
 * Built code runs `worker.js` directly. From sources (tests, tsx) the entry is `worker.ts`,
 * which plain Node cannot load, so a small bootstrap registers tsx in the thread first.
 */
function startWorker(setupModules: readonly string[]): Worker {
  const workerData = { setupModules: [...setupModules] };
  if (import.meta.url.endsWith('.js')) return new Worker(new URL('./worker.js', import.meta.url), { workerData });
  const entry = new URL('./worker.ts', import.meta.url).href;
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href;
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData });
}
