import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';

/**
 * The Redis the scale-out tests run against: BATCHWISE_TEST_REDIS (e.g. redis://127.0.0.1:6390,
 * which .ci/run starts). Unset: the tests skip, saying why. Set but down: they fail.
 */
export const REDIS_URL = process.env.BATCHWISE_TEST_REDIS;
export const SKIP_REASON = 'BATCHWISE_TEST_REDIS is unset (e.g. redis://127.0.0.1:6390); the scale-out tests need a real Redis';

/**
 * Cleanups a test file registers as it goes (workers, servers, namespaces), run in reverse
 * order after its last test, each failure ignored. Call at the top of a describe block.
 */
export function cleanupsAfterAll(): Array<() => Promise<void>> {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }, 60_000);
  return cleanups;
}

/** A namespace of its own per test, so test files running at once never share a queue or cache. */
export const freshNamespace = (): string => `bwtest-${randomUUID().slice(0, 8)}`;

export function redisClient(): Redis {
  return new Redis(REDIS_URL!, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
}

export interface WorkerProcess {
  readonly proc: ChildProcess;
  readonly lines: Array<Record<string, unknown>>;
  /** Resolves once the worker logged "ready". */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

const CLI = ['--import', 'tsx', 'src/cli/bin.ts'];

/** A real `batchwise worker` process (from sources, as the CLI tests run it); `lines` are its JSON log lines so far. */
export function spawnWorker(namespace: string, extra: string[] = [], redisUrl = REDIS_URL!): WorkerProcess {
  const proc = spawn(process.execPath, [...CLI, 'worker', '--redis', redisUrl, '--namespace', namespace, ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const lines: Array<Record<string, unknown>> = [];
  let partial = '';
  proc.stdout!.on('data', (d: Buffer) => {
    const text = partial + d.toString();
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    for (const l of parts) {
      try {
        lines.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        /* not a log line */
      }
    }
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker not ready in 120 s: ${out}`)), 120_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('batchwise worker ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before ready: ${out}`));
    });
  });
  ready.catch(() => undefined);
  return {
    proc,
    lines,
    ready,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Polls until `check` holds, at most `ms`; false if it never did. */
export async function eventually(check: () => Promise<boolean>, ms: number, everyMs = 100): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return check();
}

/** Deletes every key of a namespace (SCAN, so it never blocks Redis long). */
export async function dropNamespace(redis: Redis, namespace: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 1000);
    cursor = next;
    if (found.length) await redis.del(...found);
  } while (cursor !== '0');
}

/** A redis-server of a test's own (on a free port, no persistence), to kill and restart empty. */
export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** SIGKILL, as a crash: every key is gone (no persistence). Resolves once the process has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty; resolves when it answers PING. */
  start(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const p = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  let proc: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const handle: PrivateRedis = {
    url,
    port,
    async kill() {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      const exited = new Promise<void>((r) => p.once('exit', () => r()));
      p.kill('SIGKILL');
      await exited;
    },
    async start() {
      proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      const probe = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 1000, lazyConnect: true, retryStrategy: () => null });
      probe.on('error', () => undefined); // refused while it starts
      try {
        const up = await eventually(async () => {
          try {
            if (probe.status !== 'ready') await probe.connect().catch(() => undefined);
            return (await probe.ping()) === 'PONG';
          } catch {
            probe.disconnect();
            return false;
          }
        }, 20_000);
        if (!up) throw new Error(`redis-server on port ${port} did not answer PING`);
      } finally {
        probe.disconnect();
      }
    },
  };
  await handle.start();
  return handle;
}
