import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { BatchContext, BatchExecutor, BatchOutcome, BatchTask } from '../service/batch/executor.js';
import { chunkSizeFor, splitIntoChunks } from './chunks.js';
import { ScaleoutMetrics } from './metrics.js';
import { BATCH_KEY_TTL_S, DEFAULT_NAMESPACE, QUEUE_NAME, decode, fromWireError, jobId, keys, type ChunkJob } from './protocol.js';
import { DEFAULT_REDIS_TIMEOUT_MS, closeRedis, connectRedis, redisLostBatch, withTimeout } from './redis.js';
import { SharedResultCache, type SharedCacheOptions } from './sharedCache.js';

export interface RedisExecutorOptions {
  readonly redisUrl: string;
  /** The server's bound on states, passed to the workers with each chunk. */
  readonly maxStates: number;
  /** Scenarios per chunk (default: chosen from the batch size, see chunks.ts). */
  readonly chunkSize?: number;
  /** Bound on each Redis round trip; past it the call ends UNAVAILABLE (default 3 s). */
  readonly timeoutMs?: number;
  readonly sharedCache?: Omit<SharedCacheOptions, 'namespace'>;
  /** Key namespace shared with the workers (default `batchwise`). */
  readonly namespace?: string;
  readonly log: Logger;
  /** Registry for the queue metrics (the server's). */
  readonly registry?: Registry;
}

/** How often a batch waiting on results checks that Redis still holds it (its `alive` key). */
const ALIVE_CHECK_MS = 1000;

/**
 * SolveBatch on a BullMQ queue (`serve --redis`): answers what the shared cache holds, cuts
 * the rest into chunks of neighbours, enqueues them, and yields each index's outcome as
 * workers write it. Exactly once: workers write each index once (HSETNX) and the server
 * yields an index only the first time it sees it. Cancellation marks the batch cancelled and
 * removes its chunks still waiting. A lost Redis ends the batch UNAVAILABLE: unreachable
 * (every round trip is bounded) or back but empty (the batch's `alive` key is gone, checked
 * every second), since the chunks still queued went with it.
 */
export class RedisBatchExecutor implements BatchExecutor {
  readonly name = 'redis-queue';
  private readonly redis: Redis;
  private readonly queue: Queue<ChunkJob>;
  private readonly shared: SharedResultCache;
  private readonly timeoutMs: number;
  private readonly metrics: ScaleoutMetrics | undefined;
  private readonly cleanups = new Set<Promise<void>>();
  private readonly ns: string;

  constructor(private readonly opts: RedisExecutorOptions) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    this.ns = opts.namespace ?? DEFAULT_NAMESPACE;
    this.redis = connectRedis(opts.redisUrl, (e) => opts.log.debug({ err: e.message }, 'redis connection error'));
    this.queue = new Queue<ChunkJob>(QUEUE_NAME, {
      connection: this.redis,
      prefix: this.ns,
      defaultJobOptions: { removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } },
    });
    this.queue.on('error', (e: Error) => opts.log.debug({ err: e.message }, 'bullmq queue error'));
    this.shared = new SharedResultCache(this.redis, { timeoutMs: this.timeoutMs, ...opts.sharedCache, namespace: this.ns });
    this.metrics = opts.registry
      ? new ScaleoutMetrics(opts.registry, {
          counts: () => withTimeout(this.queue.getJobCounts('waiting', 'active', 'delayed'), this.timeoutMs, 'queue counts').then((c) => ({ waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0 })),
          workers: () => withTimeout(this.queue.getWorkersCount(), this.timeoutMs, 'worker count'),
        })
      : undefined;
  }

  /** CPU and AUTO scenarios; backend GPU stays with the server's own device. */
  accepts(task: BatchTask): boolean {
    return task.scenario.solver.backend !== 'GPU';
  }

  async *run(tasks: readonly BatchTask[], ctx: BatchContext): AsyncGenerator<BatchOutcome, void, undefined> {
    if (tasks.length === 0) return;
    await withTimeout(this.redis.ping(), this.timeoutMs, 'PING');
    const hits = await this.shared.getMany(tasks.map((t) => t.key));
    const todo: BatchTask[] = [];
    for (const t of tasks) {
      const hit = hits.get(t.key);
      if (!hit) todo.push(t);
      else {
        this.metrics?.sharedCacheHits.inc();
        yield { index: t.index, ok: true, result: hit.result, warmStart: hit.warmStart, cached: true, warmStarted: false };
      }
    }
    if (todo.length === 0 || ctx.signal.aborted) return;

    const batchId = randomUUID();
    const chunks = splitIntoChunks(todo, chunkSizeFor(todo.length, this.opts.chunkSize));
    const chunkOf = new Map<number, number>();
    chunks.forEach((c, i) => c.forEach((t) => chunkOf.set(t.index, i)));
    const left = chunks.map((c) => c.length);
    const pending = new Set(todo.map((t) => t.index));
    // BLPOP holds its connection, so each batch waits on a connection of its own; an abort
    // closes it, which ends the wait at once.
    const blocking = connectRedis(this.opts.redisUrl, () => {});
    const onAbort = (): void => blocking.disconnect();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const enqueuedAt = Date.now();
    try {
      const jobs = chunks.map((c, i) => ({
        name: 'chunk',
        data: { batchId, chunk: i, items: c.map((t) => ({ index: t.index, key: t.key, input: t.input })), warmStarts: ctx.warmStarts, maxStates: this.opts.maxStates, enqueuedAt },
        opts: { jobId: jobId(batchId, i) },
      }));
      const alive = keys.alive(this.ns, batchId);
      await withTimeout(this.redis.set(alive, '1', 'EX', BATCH_KEY_TTL_S), this.timeoutMs, 'SET alive');
      await withTimeout(this.queue.addBulk(jobs), this.timeoutMs + 100 * Math.ceil(jobs.length / 100), 'enqueue');
      this.metrics?.chunksEnqueued.inc(chunks.length);
      let checked = performance.now();
      while (pending.size > 0 && !ctx.signal.aborted) {
        if (performance.now() - checked >= ALIVE_CHECK_MS) {
          checked = performance.now();
          if (!(await withTimeout(this.redis.exists(alive), this.timeoutMs, 'EXISTS alive'))) throw redisLostBatch(pending.size, todo.length);
        }
        let first: [string, string] | null;
        try {
          first = await withTimeout(blocking.blpop(keys.done(this.ns, batchId), 1), 1000 + this.timeoutMs, 'waiting for results');
        } catch (e) {
          if (ctx.signal.aborted) return;
          throw e;
        }
        if (!first) continue;
        const more = (await withTimeout(this.redis.lpop(keys.done(this.ns, batchId), 1000), this.timeoutMs, 'LPOP')) ?? [];
        const landed = [first[1], ...more];
        const bufs = await withTimeout(this.redis.hmgetBuffer(keys.results(this.ns, batchId), ...landed), this.timeoutMs, 'HMGET');
        for (let j = 0; j < landed.length; j++) {
          const index = Number(landed[j]);
          const buf = bufs[j];
          if (!buf || !pending.delete(index)) continue; // an index is yielded once, whatever arrives twice
          const o = decode(buf);
          if (o.retry) this.metrics?.retries.inc();
          const c = chunkOf.get(index)!;
          if (--left[c] === 0) this.metrics?.chunkSeconds.observe((Date.now() - enqueuedAt) / 1000);
          yield o.ok
            ? { index, ok: true, result: o.result, warmStart: o.warmStart, cached: false, warmStarted: o.warmStarted }
            : { index, ok: false, error: fromWireError(o.error) };
        }
      }
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      blocking.disconnect();
      this.track(this.cleanup(batchId, chunks.length, pending.size > 0));
    }
  }

  /** After a batch: drop its keys; if it ended early, stop workers on it and remove its waiting chunks. */
  private async cleanup(batchId: string, chunks: number, early: boolean): Promise<void> {
    const t = this.timeoutMs;
    try {
      if (early) {
        await withTimeout(this.redis.set(keys.cancelled(this.ns, batchId), '1', 'EX', BATCH_KEY_TTL_S), t, 'cancel');
        // remove() refuses chunks a worker holds; those see the cancel mark and stop.
        await withTimeout(Promise.allSettled(Array.from({ length: chunks }, (_, i) => this.queue.remove(jobId(batchId, i)))), t * 2, 'remove chunks');
      }
      await withTimeout(this.redis.del(keys.results(this.ns, batchId), keys.done(this.ns, batchId), keys.alive(this.ns, batchId)), t, 'DEL');
    } catch (e) {
      this.opts.log.warn({ batchId, err: e instanceof Error ? e.message : String(e) }, 'batch cleanup incomplete (keys expire on their own)');
    }
  }

  private track(p: Promise<void>): void {
    this.cleanups.add(p);
    void p.finally(() => this.cleanups.delete(p));
  }

  /** Waits for running cleanups, then closes the queue and the connection. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.cleanups]);
    await withTimeout(this.queue.close(), 2000, 'queue close').catch(() => undefined);
    await closeRedis(this.redis);
  }
}
