/**
 * Scale-out throughput: one SolveBatch of 10,000 small scenarios (1,000 with --quick) solved
 * in-process (one solver thread) and through Redis by 1 and 2 `batchwise worker` processes
 * (one solver thread each), each on a fresh cache and namespace, so nothing is a hit. The
 * 1-worker row against the in-process row is the queue's overhead; 2 workers against 1 is the
 * scale-out. Needs a Redis: BATCHWISE_BENCH_REDIS or BATCHWISE_TEST_REDIS (skipped otherwise).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUE_NAME } from '../src/scaleout/protocol.js';
import { BatchwiseClient, BatchwiseServer, type Scenario, type SolveBatchRequest } from '../src/index.js';
import type { BenchContext, BenchSection } from './types.js';

const BASE: Scenario = {
  arrivalRate: 1000,
  maxBatchSize: 8,
  serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
  objective: { latencyWeight: 1, powerWeight: 1e-4 },
};

/** rates × B {8, 16} × 5 power weights × 5 latency weights. */
function grid(rates: number): SolveBatchRequest {
  return {
    grid: {
      base: BASE,
      arrivalRate: Array.from({ length: rates }, (_, i) => 10 + (2500 / rates) * i),
      maxBatchSize: [8, 16],
      latencyWeight: [0.5, 1, 2, 4, 8],
      powerWeight: [0, 1e-4, 3e-4, 1e-3, 3e-3],
    },
  } as unknown as SolveBatchRequest;
}

const fromDist = import.meta.url.endsWith('.js');
const CLI = fromDist ? ['bin/batchwise.js'] : ['--import', 'tsx', 'src/cli/bin.ts'];

function startWorker(url: string, namespace: string): Promise<ChildProcess> {
  const p = spawn(process.execPath, [...CLI, 'worker', '--redis', url, '--namespace', namespace, '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    p.once('exit', (c) => reject(new Error(`worker exited ${c}`)));
    p.once('spawn', () => resolve(p));
  });
}

/** Waits until the queue sees `n` workers (BullMQ names its connections), at most 2 minutes. */
async function workersListening(url: string, namespace: string, n: number): Promise<void> {
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAME, { connection, prefix: namespace });
  const end = Date.now() + 120_000;
  while ((await queue.getWorkersCount()) < n && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
  await queue.close();
  connection.disconnect();
}

async function run1(request: SolveBatchRequest, url: string | undefined, workers: number): Promise<{ ms: number; n: number; solved: number }> {
  const namespace = `bwbench-${randomUUID().slice(0, 8)}`;
  const server = await BatchwiseServer.start({
    port: 0,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    limits: { maxConcurrentSolves: 1, maxScenariosPerBatch: 20_000 },
    ...(url ? { redis: url, scaleout: { namespace } } : {}),
  });
  const procs = url ? await Promise.all(Array.from({ length: workers }, () => startWorker(url, namespace))) : [];
  if (url) await workersListening(url, namespace, workers);
  const client = new BatchwiseClient(server.address);
  const t = performance.now();
  let n = 0;
  let solved = 0;
  for await (const r of client.solveBatch(request)) {
    n++;
    if (r.result) solved++;
  }
  const ms = performance.now() - t;
  client.close();
  for (const p of procs) p.kill('SIGTERM');
  await server.shutdown();
  if (url) {
    const r = new Redis(url);
    let cursor = '0';
    do {
      const [next, found] = await r.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 1000);
      cursor = next;
      if (found.length) await r.del(...found);
    } while (cursor !== '0');
    r.disconnect();
  }
  return { ms, n, solved };
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const url = process.env.BATCHWISE_BENCH_REDIS ?? process.env.BATCHWISE_TEST_REDIS;
  const name = 'Scale-out: SolveBatch through Redis workers';
  if (!url) return { name, rows: [], notes: ['skipped: set BATCHWISE_BENCH_REDIS (or BATCHWISE_TEST_REDIS) to a Redis URL'] };
  const request = grid(ctx.quick ? 20 : 200);
  const rows: BenchSection['rows'] = [];
  let base = 0;
  for (const [label, workers] of [['in-process (1 solver thread)', 0], ['Redis, 1 worker', 1], ['Redis, 2 workers', 2]] as const) {
    ctx.log(label);
    const r = await run1(request, workers ? url : undefined, workers);
    if (!workers) base = r.ms;
    rows.push({
      executor: label,
      scenarios: r.n,
      solved: r.solved,
      'wall s': (r.ms / 1000).toFixed(1),
      'scenarios/s': Math.round((r.n / r.ms) * 1000),
      'vs in-process': `${(r.ms / base).toFixed(2)}×`,
    });
  }
  return {
    name,
    machineNote: 'One run each (not a median): the batch is long enough that run-to-run noise is small against it. Each worker is a separate process with one solver thread.',
    rows,
    notes: ['Scenarios are small (B ∈ {8, 16}), so per-chunk queue costs show; larger models make them relatively smaller.'],
  };
}
