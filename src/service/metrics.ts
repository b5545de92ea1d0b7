import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SolveResult } from '../solve/result.js';
import { GrpcServerMetrics } from './grpcMetrics.js';
import type { JobEnd, PoolStats } from './pool/workerPool.js';

/**
 * The service's Prometheus metrics, in a registry of its own (so several servers in one
 * process, as in the tests, do not collide): the standard gRPC server metrics (`grpc_server_*`,
 * grpcMetrics.ts) and the service's own, prefixed `batchwise_`.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  /** Calls by method and final status, messages sent, handling time: the call observer of the RPC adapter. */
  readonly grpc: GrpcServerMetrics;
  readonly solveSeconds = new Histogram({
    name: 'batchwise_solve_duration_seconds',
    help: 'Wall time of finished solves (worker side), by backend',
    labelNames: ['backend'] as const,
    buckets: [0.005, 0.02, 0.1, 0.5, 2, 10, 60],
    registers: [this.registry],
  });
  readonly solves = new Counter({ name: 'batchwise_solves_total', help: 'Solves run to completion, by backend used', labelNames: ['backend'] as const, registers: [this.registry] });
  readonly warmStarts = new Counter({ name: 'batchwise_warm_starts_total', help: 'Solves that started from a neighbouring solution', registers: [this.registry] });
  readonly cacheHits = new Counter({ name: 'batchwise_cache_hits_total', help: 'Scenarios answered from the solution cache', registers: [this.registry] });
  readonly cacheMisses = new Counter({ name: 'batchwise_cache_misses_total', help: 'Scenarios not in the solution cache', registers: [this.registry] });
  readonly sharedSolves = new Counter({ name: 'batchwise_shared_solves_total', help: 'Requests that joined an identical solve already running', registers: [this.registry] });
  readonly gpuBatchJobs = new Counter({
    name: 'batchwise_gpu_batch_jobs_total',
    help: "Jobs SolveBatch's WebGPU batches ran, by model kind (single, joint, residual): a scenario has one a round it takes part in",
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly gpuBatchScenarios = new Counter({
    name: 'batchwise_gpu_batch_scenarios_total',
    help: "Scenarios that put work into SolveBatch's WebGPU batches, each once a call (identical scenarios of a call count once)",
    registers: [this.registry],
  });
  readonly jobs = new Counter({ name: 'batchwise_worker_jobs_total', help: 'Worker jobs by kind and outcome (ok, failed, aborted)', labelNames: ['kind', 'outcome'] as const, registers: [this.registry] });
  readonly workerRestarts = new Counter({
    name: 'batchwise_worker_restarts_total',
    help: 'Workers terminated and replaced (a cancelled job that did not stop within the grace time, or a crash)',
    registers: [this.registry],
  });
  readonly abortLatency = new Histogram({
    name: 'batchwise_abort_latency_seconds',
    help: 'Time from a cancel or deadline to the job having stopped (cooperatively, or by terminating its worker)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({ name: 'batchwise_solves_in_flight', help: 'Jobs running on a worker', registers: [this.registry] });
  readonly queued = new Gauge({ name: 'batchwise_solves_queued', help: 'Jobs waiting for a worker', registers: [this.registry] });

  constructor(opts: { processMetrics?: boolean; service?: string } = {}) {
    this.grpc = new GrpcServerMetrics(this.registry, opts.service ?? 'batchwise.v1.BatchingPolicy');
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  onPool(s: PoolStats): void {
    this.inFlight.set(s.busy);
    this.queued.set(s.queued);
  }

  onJobEnd(e: JobEnd): void {
    this.jobs.inc({ kind: e.kind, outcome: e.outcome });
    if (e.abortLatencyMs !== undefined) this.abortLatency.observe(e.abortLatencyMs / 1000);
    if (e.killed) this.workerRestarts.inc();
  }

  onSolved(r: SolveResult, warmStarted: boolean): void {
    this.solves.inc({ backend: r.solver.backend });
    this.solveSeconds.observe({ backend: r.solver.backend }, r.solver.seconds);
    if (warmStarted) this.warmStarts.inc();
  }

  onShared(): void {
    this.sharedSolves.inc();
  }

  onGpuBatch(b: { readonly kind: string; readonly size: number; readonly newScenarios: number }): void {
    this.gpuBatchJobs.inc({ kind: b.kind }, b.size);
    if (b.newScenarios > 0) this.gpuBatchScenarios.inc(b.newScenarios);
  }

  onCache(hit: boolean): void {
    (hit ? this.cacheHits : this.cacheMisses).inc();
  }
}

/** Serves GET /metrics in the Prometheus text format (and 404 elsewhere). */
export async function startMetricsServer(metrics: ServiceMetrics, host: string, port: number): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end('not found; try /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
