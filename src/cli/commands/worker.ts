import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Level } from 'pino';

interface WorkerOptions {
  redis: string;
  concurrency: number;
  lockMs: number;
  stalledIntervalMs?: number;
  namespace: string;
  logLevel: Level;
}

const int = (min: number, max: number) => (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer in ${min}..${max} (got ${JSON.stringify(v)})`);
  return n;
};

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('solve SolveBatch chunks from the Redis queue of servers started with `serve --redis` (until SIGTERM/SIGINT)')
    .addOption(new Option('--redis <url>', 'Redis holding the queue, redis://HOST:PORT').env('BATCHWISE_REDIS').makeOptionMandatory())
    .addOption(new Option('--concurrency <n>', 'chunks solved at once (one solver thread each)').env('BATCHWISE_WORKER_CONCURRENCY').argParser(int(1, 256)).default(1))
    .addOption(new Option('--lock-ms <ms>', 'chunk lock; a chunk whose worker died is run again after this long').env('BATCHWISE_WORKER_LOCK_MS').argParser(int(500, 3_600_000)).default(30_000))
    .addOption(new Option('--stalled-interval-ms <ms>', 'how often to look for chunks whose lock expired (default: lock / 2)').argParser(int(100, 3_600_000)))
    .addOption(new Option('--namespace <ns>', 'Redis key namespace shared with the servers').env('BATCHWISE_REDIS_NAMESPACE').default('batchwise'))
    .addOption(new Option('--log-level <level>', 'pino log level').env('BATCHWISE_LOG_LEVEL').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'))
    .action(async (o: WorkerOptions) => {
      // Loaded here: only `batchwise worker` needs BullMQ, ioredis and pino.
      const [{ pino }, { startChunkWorker }] = await Promise.all([import('pino'), import('../../scaleout/worker.js')]);
      const log = pino({ name: 'batchwise-worker', level: o.logLevel });
      const worker = await startChunkWorker({
        redisUrl: o.redis,
        concurrency: o.concurrency,
        lockDurationMs: o.lockMs,
        stalledIntervalMs: o.stalledIntervalMs ?? Math.max(100, Math.floor(o.lockMs / 2)),
        namespace: o.namespace,
        log,
      });
      // SIGTERM: finish the chunks in hand (BullMQ waits for them), then exit.
      await new Promise<void>((resolve) => {
        const stop = (): void => resolve();
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      });
      log.info({ chunksDone: worker.chunksDone() }, 'batchwise worker stopping');
      await worker.close();
    });
}
