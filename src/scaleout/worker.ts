import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { shapeKey } from '../service/cache/canonical.js';
import { SolutionCache } from '../service/cache/solutionCache.js';
import { parseScenario } from '../service/handlers/deps.js';
import { DEFAULT_LIMITS } from '../service/config.js';
import { WorkerPool } from '../service/pool/workerPool.js';
import { SolveCoordinator } from '../service/solving/coordinator.js';
import { AbortError } from '../model/errors.js';
import type { ValidatedScenario } from '../model/scenario.js';
import { BATCH_KEY_TTL_S, DEFAULT_NAMESPACE, QUEUE_NAME, WRITE_ONCE_LUA, encode, keys, toWireError, type ChunkJob, type WireOutcome } from './protocol.js';
import { closeRedis, connectRedis } from './redis.js';
import { SharedResultCache } from './sharedCache.js';

export interface ChunkWorkerOptions {
  readonly redisUrl: string;
  /** Chunks solved at once = solver threads (default 1; run more processes for more machines). */
  readonly concurrency?: number;
  /** BullMQ lock: a chunk whose worker stops renewing it for this long is run again (default 30 s). */
  readonly lockDurationMs?: number;
  /** How often this worker looks for chunks whose lock expired (default lockDuration / 2). */
  readonly stalledIntervalMs?: number;
  /** Times a chunk may be picked up again after a stall before BullMQ fails it (default 5). */
  readonly maxStalledCount?: number;
  /** Key namespace shared with the servers (default `batchwise`). */
  readonly namespace?: string;
  readonly log: Logger;
}

/** Where a worker was in a chunk when it saw the batch's cancel mark (the `chunk cancelled` log line's `during`). */
type Leaving = 'start' | 'between' | 'solve' | 'write';

/** How often a worker solving a chunk checks whether its batch was cancelled. */
const CANCEL_POLL_MS = 250;

export interface ChunkWorker {
  readonly chunksDone: () => number;
  close(): Promise<void>;
}

/**
 * `batchwise worker`: pulls chunks from the queue and solves them on a local thread pool, in
 * chunk order so each scenario starts from its neighbour. Each outcome is written once under
 * its index (HSETNX) and announced; a chunk run again after a stall skips what is written.
 * While a chunk runs, the worker looks at its batch's cancel mark every 250 ms and aborts the
 * solve in hand (the pool's thread stops within milliseconds and is kept), so a cancelled
 * batch's chunk stops within a second rather than at its next write.
 */
export async function startChunkWorker(opts: ChunkWorkerOptions): Promise<ChunkWorker> {
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const log = opts.log;
  const ns = opts.namespace ?? DEFAULT_NAMESPACE;
  const redis = connectRedis(opts.redisUrl, (e) => log.debug({ err: e.message }, 'redis connection error'));
  const pool = new WorkerPool({ size: concurrency, maxQueued: 1_000_000 });
  await pool.ready();
  const local = new SolutionCache(256);
  const coordinator = new SolveCoordinator(pool, local, DEFAULT_LIMITS.maxStates, { onCache: () => {}, onShared: () => {}, onSolved: () => {} });
  const shared = new SharedResultCache(redis, { namespace: ns });
  let chunksDone = 0;
  pool.onJobEnd((e) => {
    if (e.outcome === 'aborted') log.info({ kind: e.kind, threadId: e.threadId, killed: e.killed ?? false, abortLatencyMs: e.abortLatencyMs }, 'solve aborted');
  });

  /** Aborts `stop` once the batch's cancel mark is there (one EXISTS at a time). */
  const watchCancel = (batchId: string, stop: AbortController): (() => void) => {
    let asking = false;
    const timer = setInterval(() => {
      if (asking || stop.signal.aborted) return;
      asking = true;
      redis.exists(keys.cancelled(ns, batchId)).then(
        (n) => {
          asking = false;
          if (n > 0) stop.abort(new AbortError('the batch was cancelled'));
        },
        () => (asking = false),
      );
    }, CANCEL_POLL_MS);
    return () => clearInterval(timer);
  };

  const process = async (job: Job<ChunkJob>): Promise<void> => {
    const c = job.data;
    const retry = (job.stalledCounter ?? 0) > 0 || job.attemptsMade > 0;
    // One round trip for what a retried chunk already wrote, then one per scenario (result,
    // announcement, shared-cache entry and the cancel check, pipelined).
    const written = await redis.hmgetBuffer(keys.results(ns, c.batchId), ...c.items.map((i) => String(i.index)));
    const left = (during: Leaving, index?: number): void =>
      log.info({ batchId: c.batchId, chunk: c.chunk, during, ...(index !== undefined ? { index } : {}) }, 'chunk cancelled');
    if (await redis.exists(keys.cancelled(ns, c.batchId))) return left('start');
    const stop = new AbortController();
    const unwatch = watchCancel(c.batchId, stop);
    log.debug({ batchId: c.batchId, chunk: c.chunk, items: c.items.length }, 'chunk started');
    try {
      await solveChunk(c, written, retry, stop.signal, left);
    } finally {
      unwatch();
    }
  };

  const solveChunk = async (c: ChunkJob, written: Array<Buffer | null>, retry: boolean, signal: AbortSignal, left: (during: Leaving, index?: number) => void): Promise<void> => {
    let prev: { scenario: ValidatedScenario; warm: { values: Float64Array; policy: Int32Array } } | undefined;
    for (const [n, item] of c.items.entries()) {
      if (signal.aborted) return left('between', item.index);
      if (written[n]) {
        prev = undefined;
        continue;
      }
      let outcome: WireOutcome;
      const pipe = redis.pipeline();
      try {
        const scenario = parseScenario(item.input, { ...DEFAULT_LIMITS, maxStates: c.maxStates });
        const fromPrev = prev && shapeKey(prev.scenario) === shapeKey(scenario) ? prev.warm : undefined;
        const o = await coordinator.solve(scenario, { signal, warmStart: !c.warmStarts ? 'none' : fromPrev, bounded: false });
        prev = { scenario, warm: o.warmStart };
        outcome = { ok: true, result: o.result, warmStart: o.warmStart, warmStarted: o.warmStarted, retry };
        pipe.eval(...shared.storeArgs(item.key, { result: o.result, warmStart: o.warmStart }));
      } catch (e) {
        if (signal.aborted) return left('solve', item.index);
        prev = undefined;
        outcome = { ok: false, error: toWireError(e), retry };
      }
      pipe.eval(WRITE_ONCE_LUA, 3, keys.results(ns, c.batchId), keys.done(ns, c.batchId), keys.cancelled(ns, c.batchId), item.index, encode(outcome), BATCH_KEY_TTL_S);
      const replies = (await pipe.exec()) ?? [];
      const [err, wrote] = replies[replies.length - 1] ?? [null, 0];
      if (err) throw err; // Redis trouble: BullMQ retries the chunk; written indices are skipped then
      if (wrote === -1) return left('write', item.index); // cancelled (the mark seen by the write script)
    }
    chunksDone++;
  };

  // BullMQ blocks on its own connection; it does not close one it was given, so we do.
  const blocking = connectRedis(opts.redisUrl, () => {});
  const worker = new Worker<ChunkJob>(QUEUE_NAME, process, {
    connection: blocking,
    prefix: ns,
    concurrency,
    lockDuration: opts.lockDurationMs ?? 30_000,
    ...(opts.stalledIntervalMs !== undefined ? { stalledInterval: opts.stalledIntervalMs } : {}),
    maxStalledCount: opts.maxStalledCount ?? 5,
    removeOnComplete: { count: 1000 },
    removeOnFail: { count: 1000 },
  });
  worker.on('error', (e) => log.warn({ err: e.message }, 'bullmq worker error'));
  worker.on('stalled', (id) => log.warn({ jobId: id }, 'chunk stalled; it goes back to the queue'));
  await worker.waitUntilReady();
  log.info({ queue: QUEUE_NAME, concurrency }, 'batchwise worker ready');
  return {
    chunksDone: () => chunksDone,
    async close() {
      await worker.close();
      await pool.close();
      await closeRedis(blocking);
      await closeRedis(redis);
    },
  };
}
