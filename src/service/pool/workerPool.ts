import type { Worker } from 'node:worker_threads';
import { AbortError } from '../../model/errors.js';
import { Code, ServiceError, serverShuttingDown } from '../rpc/status.js';
import type { JobKind, JobTypes } from './jobs.js';
import { FairQueue } from './fairQueue.js';
import type { JobEnd, PoolOptions, PoolStats, SubmitOptions } from './poolTypes.js';
import { startWorker } from './spawn.js';
import { fromWire, type FromWorker, type ToWorker } from './wire.js';

export type { JobEnd, PoolOptions, PoolStats, SubmitOptions } from './poolTypes.js';

interface Job {
  readonly id: number;
  readonly flow: string;
  readonly batch: boolean;
  readonly peer?: string;
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
  /** Shared with the worker: the id of the job to abort, read by its solver synchronously. */
  readonly cancelFlag: Int32Array;
  ready: boolean;
  job?: Job;
  killTimer?: NodeJS.Timeout;
}

/**
 * A fixed set of worker threads, each running one job at a time, with a bounded fair queue in
 * front (fairQueue.ts: single calls and batch work take turns, calls within each take turns). A caller's abort rejects its promise at once; the slot stays busy until the worker
 * confirms the job stopped, and a worker that does not stop within `abortGraceMs` is
 * replaced, so an abort always gives the worker back.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Job>();
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
    const batch = opts.bounded === false;
    const idle = this.slots.some((s) => s.ready && !s.job);
    if (!batch && !idle) {
      const waiting = this.queue.singles;
      if (waiting >= this.opts.maxQueued) {
        return Promise.reject(
          new ServiceError(Code.RESOURCE_EXHAUSTED, `all ${this.slots.length} solver workers are busy and ${waiting} requests are queued (maxQueuedSolves = ${this.opts.maxQueued}); retry later`),
        );
      }
      if (opts.peer !== undefined && !(opts.flow !== undefined && this.queue.hasFlow(opts.flow))) {
        const refused = this.peerRefusal(opts.peer);
        if (refused) return Promise.reject(refused);
      }
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const job: Job = {
        id,
        flow: opts.flow ?? `job-${id}`,
        batch,
        peer: opts.peer,
        kind,
        payload,
        opts: opts as SubmitOptions<unknown>,
        resolve: resolve as (v: unknown) => void,
        reject,
        settled: false,
        started: 0,
      };
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

  /**
   * RESOURCE_EXHAUSTED when this peer already has maxQueuedPerPeer calls waiting for a worker
   * (checked for each new call before it queues; a batch checks once, at its start).
   */
  peerRefusal(peer: string): ServiceError | undefined {
    const bound = this.opts.maxQueuedPerPeer;
    if (bound === undefined) return undefined;
    const waiting = this.queue.callsWaitingOf(peer);
    if (waiting < bound || this.slots.some((s) => s.ready && !s.job)) return undefined;
    return new ServiceError(Code.RESOURCE_EXHAUSTED, `peer ${peer} already has ${waiting} calls waiting for a solver worker (maxQueuedPerPeer = ${bound}); retry later`);
  }

  /** Rejects queued jobs, aborts running ones and stops every worker. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.drain()) this.settle(job, undefined, serverShuttingDown());
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
    const cancelFlag = new Int32Array(new SharedArrayBuffer(4));
    const slot: Slot = { worker: startWorker(this.opts.setupModules ?? [], cancelFlag), cancelFlag, ready: false };
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
    if (this.queue.remove(job)) {
      this.settle(job, undefined, abortErrorOf(signal));
      this.changed();
      return;
    }
    const slot = this.slots.find((s) => s.job === job);
    if (!slot) return;
    job.abortedAt = performance.now();
    this.settle(job, undefined, abortErrorOf(signal));
    Atomics.store(slot.cancelFlag, 0, job.id);
    slot.worker.postMessage({ type: 'abort', id: job.id } satisfies ToWorker);
    slot.killTimer = setTimeout(() => this.replace(slot, 'aborted'), this.opts.abortGraceMs ?? 1000);
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
      threadId: slot.worker.threadId,
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
        threadId: slot.worker.threadId,
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
