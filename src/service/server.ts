import type { Server as HttpServer } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import type * as protoLoader from '@grpc/proto-loader';
import { HealthImplementation } from 'grpc-health-check';
import { pino, type Logger } from 'pino';
import { CpuBatchExecutor } from './batch/cpuExecutor.js';
import { registeredBatchExecutors, type BatchExecutor } from './batch/executor.js';
import { GpuBatchExecutor } from './batch/gpuExecutor.js';
import { SolutionCache } from './cache/solutionCache.js';
import { DEFAULT_LIMITS, DEFAULT_PROGRESS_INTERVAL_MS, type ServiceLimits } from './config.js';
import type { ServiceDeps } from './handlers/deps.js';
import { RPCS } from './handlers/index.js';
import { ServiceMetrics, startMetricsServer } from './metrics.js';
import { WorkerPool } from './pool/workerPool.js';
import { SERVICE_NAME, loadPackageDefinition } from './proto.js';
import { reflectionService } from './reflection.js';
import { adaptServerStreaming, adaptUnary, type AdapterDeps } from './rpc/adapter.js';
import { Terminator } from './rpc/terminator.js';
import { SolveCoordinator } from './solving/coordinator.js';
import { ConfigError, serverCredentials, type ServerTls } from './tls.js';
import { releaseGpuIfOpen } from '../solve/gpu/lifecycle.js';
import { setGpuLogger } from '../solve/gpu/log.js';
import { withTolerantDeserializers } from './rpc/malformed.js';
import { RedisBatchExecutor, type RedisExecutorOptions } from '../scaleout/redisExecutor.js';

export interface ServerOptions {
  /** Default 127.0.0.1. Plaintext is refused on a non-loopback host unless `insecure`. */
  readonly host?: string;
  /** Default 50051; 0 picks a free port (see `port` on the result). */
  readonly port?: number;
  /** Serve Prometheus metrics on this port (0 = any free port); off when undefined. */
  readonly metricsPort?: number;
  /**
   * Address the metrics listen on. Metrics are plain HTTP without authentication, so with TLS
   * the default is loopback (127.0.0.1: a scraper on the host or a sidecar), whatever `host` is;
   * without TLS the default is `host`. Give it explicitly to expose them (e.g. 0.0.0.0 inside a
   * cluster network).
   */
  readonly metricsHost?: string;
  /** Serve gRPC server reflection (default true): what lets grpcurl and generic clients work without the proto. */
  readonly reflection?: boolean;
  readonly tls?: ServerTls;
  readonly insecure?: boolean;
  readonly logger?: Logger;
  readonly limits?: Partial<ServiceLimits>;
  /** Solutions kept for exact hits and warm starts (default 1024)... */
  readonly cacheSize?: number;
  /** ...and at most about this many bytes of them (default 256 MiB). */
  readonly cacheMaxBytes?: number;
  /** Default least time between Solve progress updates (default 100 ms). */
  readonly progressIntervalMs?: number;
  /** How long shutdown lets running calls finish before aborting them (default 10 s). */
  readonly shutdownGraceMs?: number;
  /** How long a cancelled job may take to stop before its worker is replaced (default 1 s; the solvers stop within milliseconds). */
  readonly abortGraceMs?: number;
  /** Modules each worker thread imports first (e.g. to register a GPU provider there). */
  readonly workerSetupModules?: readonly string[];
  /** Batch executors asked before the CPU pool (default: those registered with registerBatchExecutor, then the WebGPU batch for backend GPU). */
  readonly batchExecutors?: () => readonly BatchExecutor[];
  /** Also export Node process metrics (default true). */
  readonly processMetrics?: boolean;
  /** Scale-out (`serve --redis`): SolveBatch goes to `batchwise worker` processes through this Redis (see docs/scaleout.md). */
  readonly redis?: string;
  /** Tuning of the Redis executor (chunk size, timeouts, shared cache TTL and bound). */
  readonly scaleout?: Partial<Omit<RedisExecutorOptions, 'redisUrl' | 'log' | 'registry'>>;
}

/** A running service: gRPC (BatchingPolicy, health, reflection) plus optional metrics over HTTP. */
export class BatchwiseServer {
  private shuttingDown: Promise<void> | undefined;
  /** The Redis executor when started with `redis`; closed last on shutdown. */
  private scaleout: RedisBatchExecutor | undefined;

  private constructor(
    readonly grpcServer: grpc.Server,
    readonly port: number,
    readonly host: string,
    readonly metrics: ServiceMetrics,
    readonly metricsPort: number | undefined,
    private readonly metricsServer: HttpServer | undefined,
    readonly pool: WorkerPool,
    readonly cache: SolutionCache,
    readonly health: HealthImplementation,
    private readonly terminator: Terminator,
    readonly log: Logger,
    private readonly graceMs: number,
  ) {}

  get address(): string {
    return `${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}`;
  }

  /** Calls running now. */
  get activeCalls(): number {
    return this.terminator.size;
  }

  static async start(opts: ServerOptions = {}): Promise<BatchwiseServer> {
    const host = opts.host ?? '127.0.0.1';
    const limits: ServiceLimits = { ...DEFAULT_LIMITS, ...opts.limits };
    const log = opts.logger ?? pino({ name: 'batchwise' });
    const credentials = serverCredentials(host, opts.tls, opts.insecure === true);
    const metrics = new ServiceMetrics({ processMetrics: opts.processMetrics ?? true, service: SERVICE_NAME });
    const pool = new WorkerPool({
      size: limits.maxConcurrentSolves,
      maxQueued: limits.maxQueuedSolves,
      maxQueuedPerPeer: limits.maxQueuedPerPeer,
      setupModules: opts.workerSetupModules,
      abortGraceMs: opts.abortGraceMs,
    });
    pool.onChange((s) => metrics.onPool(s));
    pool.onJobEnd((e) => metrics.onJobEnd(e));
    const cache = new SolutionCache(opts.cacheSize ?? 1024, opts.cacheMaxBytes);
    const coordinator = new SolveCoordinator(pool, cache, limits.maxStates, metrics, (err) => log.error({ err }, 'percentile computation failed'));
    const scaleout = opts.redis
      ? new RedisBatchExecutor({ maxStates: limits.maxStates, ...opts.scaleout, redisUrl: opts.redis, log, registry: metrics.registry })
      : undefined;
    const executors = opts.batchExecutors ?? defaultExecutors(metrics);
    const deps: ServiceDeps = {
      limits,
      pool,
      cache,
      coordinator,
      cpuBatchExecutor: new CpuBatchExecutor(coordinator, () => pool.stats().size),
      batchExecutors: scaleout ? () => [scaleout, ...executors()] : executors,
      progressIntervalMs: opts.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    };
    const terminator = new Terminator();
    const server = new grpc.Server({
      'grpc.max_receive_message_length': limits.maxMessageBytes,
      'grpc.max_send_message_length': limits.maxMessageBytes,
    });
    const packageDefinition = loadPackageDefinition({ defaults: false });
    server.addService(serviceDefinition(packageDefinition), implementation(deps, { log, terminator, observer: metrics.grpc }));
    metrics.grpc.initialize(Object.entries(RPCS).map(([name, rpc]) => ({ name, type: rpc.kind === 'unary' ? 'unary' : 'server_stream' })));
    const health = new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });
    health.addToServer(server);
    if (opts.reflection !== false) reflectionService().addToServer(server);
    // GPU trouble (device loss, fallbacks) goes into this server's log stream, not a stderr logger of its own.
    setGpuLogger(log.child({ component: 'gpu' }));

    let port: number;
    let metricsServer: HttpServer | undefined;
    let metricsPort: number | undefined;
    const metricsHost = opts.metricsHost ?? (opts.tls ? '127.0.0.1' : host);
    try {
      port = await new Promise<number>((resolve, reject) =>
        server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${opts.port ?? 50051}`, credentials, (err, p) => (err ? reject(err) : resolve(p))),
      );
      if (opts.metricsPort !== undefined) {
        ({ server: metricsServer, port: metricsPort } = await startMetricsServer(metrics, metricsHost, opts.metricsPort));
      }
      await pool.ready();
    } catch (e) {
      server.forceShutdown();
      await pool.close();
      await scaleout?.close();
      throw e;
    }
    log.info(
      {
        address: `${host}:${port}`,
        tls: opts.tls ? (opts.tls.clientCa ? 'mutual' : 'server') : 'off',
        reflection: opts.reflection !== false,
        ...(metricsPort !== undefined ? { metricsPort, metricsHost } : {}),
        limits,
      },
      'batchwise serving',
    );
    const running = new BatchwiseServer(server, port, host, metrics, metricsPort, metricsServer, pool, cache, health, terminator, log, opts.shutdownGraceMs ?? 10_000);
    running.scaleout = scaleout;
    return running;
  }

  /**
   * Stops taking calls, lets running ones finish for up to `graceMs`, then aborts the rest
   * (they end UNAVAILABLE, "Server shutting down"), and stops the workers. Idempotent.
   */
  shutdown(opts: { graceMs?: number } = {}): Promise<void> {
    this.shuttingDown ??= this.stop(opts.graceMs ?? this.graceMs);
    if (opts.graceMs === 0) this.terminator.terminate();
    return this.shuttingDown;
  }

  private async stop(graceMs: number): Promise<void> {
    const started = performance.now();
    this.health.setStatus('', 'NOT_SERVING');
    this.health.setStatus(SERVICE_NAME, 'NOT_SERVING');
    const closed = new Promise<void>((resolve) => this.grpcServer.tryShutdown(() => resolve()));
    const grace = setTimeout(() => this.terminator.terminate(), graceMs);
    const running = this.terminator.size;
    await this.terminator.idle();
    clearTimeout(grace);
    // Calls have ended; give the transport a moment to flush their statuses, then close hard.
    const force = setTimeout(() => this.grpcServer.forceShutdown(), 2000);
    await closed;
    clearTimeout(force);
    await this.pool.close();
    await this.scaleout?.close();
    await releaseGpuIfOpen(); // destroy the WebGPU device, if a GPU solve opened one
    if (this.metricsServer) await new Promise<void>((r) => this.metricsServer!.close(() => r()));
    this.log.info({ runningAtStart: running, aborted: this.terminator.isTerminated, durationMs: Math.round(performance.now() - started) }, 'batchwise stopped');
  }
}

function defaultExecutors(metrics: ServiceMetrics): () => readonly BatchExecutor[] {
  const gpu = new GpuBatchExecutor(metrics);
  return () => [...registeredBatchExecutors(), gpu];
}

function serviceDefinition(pkg: protoLoader.PackageDefinition): grpc.ServiceDefinition {
  const def = grpc.loadPackageDefinition(pkg) as unknown as { batchwise: { v1: { BatchingPolicy: grpc.ServiceClientConstructor } } };
  return withTolerantDeserializers(def.batchwise.v1.BatchingPolicy.service);
}

/** Builds the grpc-js implementation object from the registration table. */
function implementation(deps: ServiceDeps, adapter: AdapterDeps): grpc.UntypedServiceImplementation {
  const impl: grpc.UntypedServiceImplementation = {};
  const pkg = loadPackageDefinition({ defaults: false });
  const methods = new Set(Object.keys(serviceDefinition(pkg)));
  for (const [name, rpc] of Object.entries(RPCS)) {
    if (!methods.has(name)) throw new ConfigError(`handler table names ${name}, which ${SERVICE_NAME} does not declare`);
    impl[name] =
      rpc.kind === 'unary'
        ? adaptUnary(name, rpc.create(deps) as never, adapter)
        : adaptServerStreaming(name, rpc.create(deps) as never, adapter);
  }
  return impl;
}
