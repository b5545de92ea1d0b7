import type { ServiceLimits } from '../config.js';
import type { WorkerPool } from '../pool/workerPool.js';
import type { BatchEntry, BatchSource } from './expand.js';
import type { Prepared } from './prepare.js';

/** Most scenarios validated per pool job: small enough that each message in and out is cheap to copy. */
const MAX_SLICE = 128;
/** Slices per worker at least, so heavy entries (trace fits) spread over every worker. */
const SLICES_PER_WORKER = 4;

export interface PrepareOptions {
  readonly pool: WorkerPool;
  readonly limits: ServiceLimits;
  readonly signal: AbortSignal;
  /** The call's flow and peer in the pool's fair queue. */
  readonly flow?: string;
  readonly peer?: string;
}

/**
 * A batch's entries with their validation, in index order: the main thread only builds each
 * slice of entries (object spreads) and posts it; validation (trace fits included) runs as
 * `prepare` jobs on the pool, one slice per worker in flight. A fired signal rejects.
 */
export async function* prepareOnPool(source: BatchSource, opts: PrepareOptions): AsyncGenerator<{ entry: BatchEntry; prepared: Prepared }, void, undefined> {
  const window = Math.max(1, opts.pool.stats().size);
  const slice = Math.max(1, Math.min(MAX_SLICE, Math.ceil(source.count / (SLICES_PER_WORKER * window))));
  const starts: number[] = [];
  for (let from = 0; from < source.count; from += slice) starts.push(from);
  const inFlight: Array<Promise<{ entries: BatchEntry[]; prepared: Prepared[] }>> = [];
  let next = 0;
  const launch = (): void => {
    const from = starts[next++];
    const entries = source.entries(from, from + slice);
    const job = opts.pool
      .submit('prepare', { scenarios: entries.map((e) => e.scenario), limits: opts.limits }, { signal: opts.signal, bounded: false, flow: opts.flow, peer: opts.peer })
      .then((prepared) => ({ entries, prepared }));
    job.catch(() => undefined); // awaited below; one left behind by an early stop must not be "unhandled"
    inFlight.push(job);
  };
  while (next < starts.length && inFlight.length < window) launch();
  while (inFlight.length > 0) {
    const { entries, prepared } = await inFlight.shift()!;
    if (next < starts.length) launch();
    for (let i = 0; i < entries.length; i++) yield { entry: entries[i], prepared: prepared[i] };
  }
}
