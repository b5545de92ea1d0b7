import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { BatchwiseClient, type ClientOptions } from '../../../src/service/client.js';
import { BatchwiseServer, type ServerOptions } from '../../../src/service/server.js';
import type { SolveResult } from '../../../src/solve/result.js';
import type { JobEnd } from '../../../src/service/pool/workerPool.js';
import { specScenario } from '../../helpers/scenarios.js';

/** A pino logger writing JSON lines into memory, parsed (as pino's own test helper `sink()` does). */
export function memoryLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

export interface Harness {
  readonly server: BatchwiseServer;
  readonly lines: Array<Record<string, unknown>>;
  /** Jobs that ended on the pool (outcome ok / failed / aborted). */
  readonly jobEnds: JobEnd[];
  client(opts?: ClientOptions): BatchwiseClient;
  /** Resolves at the next job end matching the predicate (or one already seen). */
  jobEnd(pred: (e: JobEnd) => boolean): Promise<JobEnd>;
  close(): Promise<void>;
}

/** A real server on 127.0.0.1:0 with an in-memory log, and real grpc-js clients. */
export async function startHarness(opts: ServerOptions = {}): Promise<Harness> {
  const { logger, lines } = memoryLogger();
  const server = await BatchwiseServer.start({ port: 0, logger, processMetrics: false, ...opts });
  const clients: BatchwiseClient[] = [];
  const jobEnds: JobEnd[] = [];
  const waiters: Array<{ pred: (e: JobEnd) => boolean; resolve: (e: JobEnd) => void }> = [];
  server.pool.onJobEnd((e) => {
    jobEnds.push(e);
    for (const w of waiters.splice(0)) {
      if (w.pred(e)) w.resolve(e);
      else waiters.push(w);
    }
  });
  return {
    server,
    lines,
    jobEnds,
    client(o) {
      const c = new BatchwiseClient(server.address, o);
      clients.push(c);
      return c;
    },
    jobEnd(pred) {
      const seen = jobEnds.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
    async close() {
      for (const c of clients) c.close();
      await server.shutdown({ graceMs: 0 });
    },
  };
}

/** The result without its wall time, the one field two solves of the same scenario may differ in. */
export function comparable(r: SolveResult): unknown {
  return { ...r, solver: { ...r.solver, seconds: 0 } };
}

/**
 * A solve that runs for minutes but reports progress within a few hundred milliseconds: value
 * iteration at 99.4 % load on a small fixed S (cheap sweeps) at the tightest tolerance, where
 * the bounds close very slowly (relative gap still ≈ 0.2 after 10⁴ sweeps).
 */
export function longScenario(): ReturnType<typeof specScenario> {
  return { ...specScenario(4900, 1e-4), solver: { method: 'VALUE_ITERATION', tolerance: 1e-13, maxQueue: 150 } };
}

/** Reads one sample of a Prometheus text exposition: `name{labels} value`. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]] as [string, string]));
    if (want.every(([k, v]) => have.get(k) === v)) return Number(m[3]);
  }
  return undefined;
}
