import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Level } from 'pino';
import type { ServiceLimits } from '../../service/config.js';
import type { BatchwiseServer } from '../../service/server.js';
import type { ServerTls } from '../../service/tls.js';
import { readPem } from '../remote.js';

interface ServeOptions {
  host: string;
  port: number;
  metricsPort?: number;
  metricsHost?: string;
  reflection: boolean;
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
  insecure?: boolean;
  workers?: number;
  maxQueued?: number;
  maxQueuedPerPeer?: number;
  maxWorkPerCall?: number;
  maxStates?: number;
  maxBatchSize?: number;
  maxBatchScenarios?: number;
  maxMessageBytes?: number;
  cacheSize: number;
  progressIntervalMs: number;
  shutdownGraceMs: number;
  logLevel: Level;
  redis?: string;
  redisNamespace?: string;
}

const int = (min: number, max: number) => (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer in ${min}..${max} (got ${JSON.stringify(v)})`);
  return n;
};

/** A positive number, plain or in exponent form (1e10). */
const positive = (v: string): number => {
  const n = Number(v);
  if (!(Number.isFinite(n) && n > 0)) throw new InvalidArgumentError(`expected a positive number such as 1e10 (got ${JSON.stringify(v)})`);
  return n;
};

/** Every flag also reads an environment variable (the flag wins). */
const opt = (flags: string, help: string, env: string): Option => new Option(flags, help).env(env);

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the gRPC service (batchwise.v1.BatchingPolicy, health, reflection) until SIGTERM/SIGINT')
    .addOption(opt('--host <host>', 'address to listen on', 'BATCHWISE_HOST').default('127.0.0.1'))
    .addOption(opt('--port <port>', 'gRPC port (0 = any free port)', 'BATCHWISE_PORT').argParser(int(0, 65535)).default(50051))
    .addOption(opt('--metrics-port <port>', 'serve Prometheus metrics on http://HOST:PORT/metrics', 'BATCHWISE_METRICS_PORT').argParser(int(0, 65535)))
    .addOption(opt('--metrics-host <host>', 'address of the metrics listener (default: --host, or 127.0.0.1 with TLS: metrics are plain HTTP)', 'BATCHWISE_METRICS_HOST'))
    .option('--no-reflection', 'do not serve gRPC server reflection (clients then need the proto)')
    .addOption(opt('--tls-cert <file>', 'server certificate chain (PEM); enables TLS', 'BATCHWISE_TLS_CERT'))
    .addOption(opt('--tls-key <file>', 'server private key (PEM)', 'BATCHWISE_TLS_KEY'))
    .addOption(opt('--tls-client-ca <file>', 'require client certificates signed by this CA (mutual TLS)', 'BATCHWISE_TLS_CLIENT_CA'))
    // Not .env(): commander turns a boolean on for any value, and BATCHWISE_INSECURE=0 must not mean "on".
    .addOption(new Option('--insecure', 'allow plaintext on a non-loopback address (env BATCHWISE_INSECURE=1|true|yes)'))
    .addOption(opt('--workers <n>', 'solver worker threads = max concurrent solves (default: CPU count)', 'BATCHWISE_WORKERS').argParser(int(1, 256)))
    .addOption(opt('--max-queued <n>', 'requests that may wait for a worker before RESOURCE_EXHAUSTED (default 64)', 'BATCHWISE_MAX_QUEUED').argParser(int(0, 1_000_000)))
    .addOption(opt('--max-queued-per-peer <n>', 'calls one client connection may have waiting for a worker (default 16)', 'BATCHWISE_MAX_QUEUED_PER_PEER').argParser(int(1, 1_000_000)))
    .addOption(opt('--max-work-per-call <n>', 'most estimated chain entries (states × band width, or ~3B a state with exponential service; summed over a batch) one call may solve (default 1e10)', 'BATCHWISE_MAX_WORK_PER_CALL').argParser(positive))
    .addOption(opt('--max-states <n>', 'most states (S + 1) one solve may use', 'BATCHWISE_MAX_STATES').argParser(int(2, 1_000_000)))
    .addOption(opt('--max-batch-size <n>', 'largest maxBatchSize accepted', 'BATCHWISE_MAX_BATCH_SIZE').argParser(int(1, 1024)))
    .addOption(opt('--max-batch-scenarios <n>', 'most scenarios in one SolveBatch (default 10000)', 'BATCHWISE_MAX_BATCH_SCENARIOS').argParser(int(1, 10_000_000)))
    .addOption(opt('--max-message-bytes <n>', 'largest gRPC message in or out (default 16 MiB)', 'BATCHWISE_MAX_MESSAGE_BYTES').argParser(int(1024, 2 ** 31 - 1)))
    .addOption(opt('--cache-size <n>', 'solutions kept for cache hits and warm starts', 'BATCHWISE_CACHE_SIZE').argParser(int(0, 10_000_000)).default(1024))
    .addOption(opt('--progress-interval-ms <ms>', 'default least time between Solve progress updates', 'BATCHWISE_PROGRESS_INTERVAL_MS').argParser(int(10, 3_600_000)).default(100))
    .addOption(opt('--shutdown-grace-ms <ms>', 'on SIGTERM, how long running calls may finish before they are aborted', 'BATCHWISE_SHUTDOWN_GRACE_MS').argParser(int(0, 3_600_000)).default(10_000))
    .addOption(opt('--redis <url>', 'scale out: SolveBatch runs on `batchwise worker` processes through this Redis (redis://HOST:PORT)', 'BATCHWISE_REDIS'))
    .addOption(opt('--redis-namespace <ns>', 'Redis key namespace shared with the workers (default batchwise)', 'BATCHWISE_REDIS_NAMESPACE'))
    .addOption(opt('--log-level <level>', 'pino log level', 'BATCHWISE_LOG_LEVEL').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'))
    .action(async (o: ServeOptions) => {
      const server = await start(o);
      await untilSignalled(server);
    });
}

async function start(o: ServeOptions): Promise<BatchwiseServer> {
  if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) throw new InvalidArgumentError('--tls-cert and --tls-key go together');
  if (o.tlsClientCa && !o.tlsCert) throw new InvalidArgumentError('--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS first)');
  const tls: ServerTls | undefined =
    o.tlsCert && o.tlsKey
      ? {
          cert: readPem(o.tlsCert, '--tls-cert'),
          key: readPem(o.tlsKey, '--tls-key'),
          ...(o.tlsClientCa ? { clientCa: readPem(o.tlsClientCa, '--tls-client-ca') } : {}),
        }
      : undefined;
  const limits: Partial<ServiceLimits> = {
    ...(o.workers !== undefined ? { maxConcurrentSolves: o.workers } : {}),
    ...(o.maxQueued !== undefined ? { maxQueuedSolves: o.maxQueued } : {}),
    ...(o.maxQueuedPerPeer !== undefined ? { maxQueuedPerPeer: o.maxQueuedPerPeer } : {}),
    ...(o.maxWorkPerCall !== undefined ? { maxWorkPerCall: o.maxWorkPerCall } : {}),
    ...(o.maxStates !== undefined ? { maxStates: o.maxStates } : {}),
    ...(o.maxBatchSize !== undefined ? { maxBatchSize: o.maxBatchSize } : {}),
    ...(o.maxBatchScenarios !== undefined ? { maxScenariosPerBatch: o.maxBatchScenarios } : {}),
    ...(o.maxMessageBytes !== undefined ? { maxMessageBytes: o.maxMessageBytes } : {}),
  };
  // Loaded here, not at the top: `batchwise --help` and local commands never load gRPC, pino or the GPU stack.
  const [{ BatchwiseServer }, { ConfigError }, { pino }] = await Promise.all([
    import('../../service/server.js'),
    import('../../service/tls.js'),
    import('pino'),
  ]);
  try {
    return await BatchwiseServer.start({
      host: o.host,
      port: o.port,
      metricsPort: o.metricsPort,
      metricsHost: o.metricsHost,
      reflection: o.reflection,
      tls,
      insecure: o.insecure === true || envSwitch('BATCHWISE_INSECURE'),
      limits,
      cacheSize: o.cacheSize,
      progressIntervalMs: o.progressIntervalMs,
      shutdownGraceMs: o.shutdownGraceMs,
      logger: pino({ name: 'batchwise', level: o.logLevel }),
      ...(o.redis ? { redis: o.redis, scaleout: o.redisNamespace ? { namespace: o.redisNamespace } : {} } : {}),
    });
  } catch (e) {
    if (e instanceof ConfigError) throw new InvalidArgumentError(e.message);
    throw e;
  }
}

/** An on/off environment variable: 1/true/yes or 0/false/no (or unset); anything else is refused. */
function envSwitch(name: string): boolean {
  const v = (process.env[name] ?? '').trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(v)) return false;
  throw new InvalidArgumentError(`${name}=${JSON.stringify(process.env[name])}: expected 1, true, yes or 0, false, no`);
}

/** First SIGTERM/SIGINT: graceful shutdown; a second one aborts running calls at once. */
async function untilSignalled(server: BatchwiseServer): Promise<void> {
  let signals = 0;
  let stopping: Promise<void> | undefined;
  await new Promise<void>((resolve) => {
    const onSignal = (sig: NodeJS.Signals): void => {
      signals++;
      server.log.info({ signal: sig }, signals === 1 ? 'shutting down' : 'aborting running calls');
      stopping = server.shutdown(signals === 1 ? {} : { graceMs: 0 });
      if (signals === 1) {
        void stopping.then(() => {
          process.removeListener('SIGTERM', onSignal);
          process.removeListener('SIGINT', onSignal);
          resolve();
        });
      }
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await stopping;
}
