/**
 * Scale-out throughput: one SolveBatch of 10,000 cheap, varied scenarios (bench/scaleout.grid.ts:
 * 4 service laws × B ∈ {4, 8} × 25 weight pairs × 50 loads ≤ 0.6; 1,000 with --quick) solved
 *
 *   - in-process: a server without Redis, one solver thread (the sweep's own executor);
 *   - through Redis by 1 and by 2 `batchwise worker` processes (one solver thread each).
 *
 * Every run is end to end through gRPC on a fresh server, cache and namespace, so nothing is a
 * hit; worker start-up is not timed (the clock starts once the queue sees the workers). Runs go
 * round-robin over the three executors (so load from elsewhere on the machine spreads over all
 * three) and each row is the median. The 1-worker row against the in-process row is the chunk
 * overhead (queue hop, Redis writes, serialization); 2 workers against 1 is the scale-out.
 * Needs a Redis: BATCHWISE_BENCH_REDIS or BATCHWISE_TEST_REDIS (skipped otherwise).
 * BATCHWISE_BENCH_SCALEOUT_RUNS sets the runs per executor (default 3, 1 with --quick); fewer
 * are made when another round would pass BATCHWISE_BENCH_SCALEOUT_BUDGET_S (default 540 s),
 * and the section says how many.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { pino } from 'pino';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { chunkSizeFor } from '../src/scaleout/chunks.js';
import { QUEUE_NAME } from '../src/scaleout/protocol.js';
import { type SolveBatchRequest } from '../src/index.js';
import { BatchwiseClient, BatchwiseServer } from '../src/service/index.js';
import { cheapBatch } from './scaleout.grid.js';
import { fmt, median } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

const fromDist = import.meta.url.endsWith('.js');
const CLI = fromDist ? ['bin/batchwise.js'] : ['--import', 'tsx', 'src/cli/bin.ts'];

function startWorker(url: string, namespace: string): ChildProcess {
  const p = spawn(process.execPath, [...CLI, 'worker', '--redis', url, '--namespace', namespace, '--concurrency', '1', '--log-level', 'warn'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  p.once('exit', (c, sig) => {
    if (c !== 0 && sig !== 'SIGTERM') console.error(`[bench:scaleout] worker exited (${c ?? sig})`);
  });
  return p;
}

/** Waits until the queue sees `n` workers (BullMQ names its connections), at most 2 minutes. */
async function workersListening(url: string, namespace: string, n: number): Promise<void> {
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAME, { connection, prefix: namespace });
  const end = Date.now() + 120_000;
  try {
    while ((await queue.getWorkersCount()) < n) {
      if (Date.now() > end) throw new Error(`only ${await queue.getWorkersCount()} of ${n} workers on the queue after 2 minutes`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

async function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  p.kill('SIGTERM');
  const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

interface Run {
  ms: number;
  n: number;
  solved: number;
  warmStarted: number;
  cached: number;
}

async function runOnce(request: SolveBatchRequest, url: string | undefined, workers: number): Promise<Run> {
  const namespace = `bwbench-${randomUUID().slice(0, 8)}`;
  const server = await BatchwiseServer.start({
    port: 0,
    logger: pino({ level: 'silent' }),
    processMetrics: false,
    limits: { maxConcurrentSolves: 1, maxScenariosPerBatch: 20_000 },
    ...(url ? { redis: url, scaleout: { namespace } } : {}),
  });
  const procs = url ? Array.from({ length: workers }, () => startWorker(url, namespace)) : [];
  const client = new BatchwiseClient(server.address);
  try {
    if (url) await workersListening(url, namespace, workers);
    const t = performance.now();
    const run: Run = { ms: 0, n: 0, solved: 0, warmStarted: 0, cached: 0 };
    for await (const r of client.solveBatch(request, { deadline: Date.now() + 1_800_000 })) {
      run.n++;
      if (r.result) run.solved++;
      if (r.warmStarted) run.warmStarted++;
      if (r.cached) run.cached++;
    }
    run.ms = performance.now() - t;
    return run;
  } finally {
    client.close();
    await Promise.all(procs.map(stop));
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
  }
}

const EXECUTORS = [
  { label: 'in-process sweep (1 solver thread)', workers: 0 },
  { label: 'Redis queue, 1 worker process', workers: 1 },
  { label: 'Redis queue, 2 worker processes', workers: 2 },
] as const;

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const url = process.env.BATCHWISE_BENCH_REDIS ?? process.env.BATCHWISE_TEST_REDIS;
  const name = 'Scale-out: SolveBatch through Redis workers';
  if (!url) return { name, rows: [], notes: ['skipped: set BATCHWISE_BENCH_REDIS (or BATCHWISE_TEST_REDIS) to a Redis URL'] };
  const loads = ctx.quick ? 5 : 50;
  const request = cheapBatch(loads);
  const size = request.list!.scenarios!.length;
  const runs = Math.max(1, Number(process.env.BATCHWISE_BENCH_SCALEOUT_RUNS ?? (ctx.quick ? 1 : 3)));
  const budgetS = Number(process.env.BATCHWISE_BENCH_SCALEOUT_BUDGET_S ?? 540);
  const times: number[][] = EXECUTORS.map(() => []);
  const last: Run[] = [];
  const started = new Date().toISOString();
  const t0 = performance.now();
  let rounds = 0;
  while (rounds < runs) {
    const round = performance.now();
    for (const [i, e] of EXECUTORS.entries()) {
      const r = await runOnce(request, e.workers ? url : undefined, e.workers);
      if (r.n !== size || r.cached !== 0) throw new Error(`${e.label}: ${r.n} results (${r.cached} cached) for ${size} scenarios`);
      ctx.log(`run ${rounds + 1}/${runs} ${e.label}: ${(r.ms / 1000).toFixed(1)} s, ${r.solved} solved, ${r.warmStarted} warm-started`);
      times[i].push(r.ms);
      last[i] = r;
    }
    rounds++;
    const elapsed = performance.now() - t0;
    if (rounds < runs && elapsed + (performance.now() - round) > budgetS * 1000) {
      ctx.log(`stopping after ${rounds} round(s): another would pass the ${budgetS} s budget`);
      break;
    }
  }
  const base = median(times[0]);
  const one = median(times[1]);
  const rows: BenchSection['rows'] = EXECUTORS.map((e, i) => {
    const ms = median(times[i]);
    return {
      executor: e.label,
      scenarios: size,
      solved: last[i].solved,
      'warm-started': last[i].warmStarted,
      'wall s (median)': (ms / 1000).toFixed(1),
      'runs (s)': times[i].map((t) => (t / 1000).toFixed(1)).join(', '),
      'scenarios/s': Math.round((size / ms) * 1000),
      'wall vs in-process': `${(ms / base).toFixed(2)}×`,
    };
  });
  const cpu = os.cpus();
  return {
    name,
    machineNote:
      `Measured ${started.slice(0, 10)} on ${cpu[0]?.model ?? 'unknown'} × ${cpu.length} cores (shared; load average at the end ${os.loadavg()[0].toFixed(1)}). ` +
      `Median of ${rounds} run${rounds > 1 ? 's' : ''} per executor, run round-robin; every run end to end through gRPC on a fresh server, cache and namespace; ` +
      `each worker is a separate process with one solver thread; worker start-up is not timed.`,
    rows,
    notes: [
      `Batch: bench/scaleout.grid.ts, ${size} scenarios (4 service laws × B ∈ {4, 8} × 5 latency × 5 power weights × ${loads} loads from 0.05 to 0.6 of capacity), ${Math.ceil(size / chunkSizeFor(size))} chunks of ${chunkSizeFor(size)}.`,
      `Chunk overhead (1 worker against the in-process sweep): ${fmt((one - base) / size)} ms per scenario, ${(one / base).toFixed(2)}× the in-process wall time; 2 workers against 1: ${(one / median(times[2])).toFixed(2)}× the throughput.`,
    ],
  };
}
