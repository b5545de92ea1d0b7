import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** What the server reports about the queue, beside the service's own metrics (same registry). */
export interface QueueProbe {
  counts(): Promise<{ waiting: number; active: number; delayed: number }>;
  workers(): Promise<number>;
}

export class ScaleoutMetrics {
  readonly chunkSeconds: Histogram;
  readonly retries: Counter;
  readonly chunksEnqueued: Counter;
  readonly sharedCacheHits: Counter;

  constructor(registry: Registry, probe: QueueProbe) {
    const registers = [registry];
    this.chunkSeconds = new Histogram({
      name: 'batchwise_chunk_latency_seconds',
      help: 'Time from enqueueing a chunk to its last result arriving at the server',
      buckets: [0.05, 0.2, 1, 5, 20, 60, 300],
      registers,
    });
    this.retries = new Counter({ name: 'batchwise_chunk_retries_total', help: 'Results that came from a chunk run again after its worker stalled', registers });
    this.chunksEnqueued = new Counter({ name: 'batchwise_chunks_enqueued_total', help: 'Chunks put on the queue', registers });
    this.sharedCacheHits = new Counter({ name: 'batchwise_shared_cache_hits_total', help: 'Batch scenarios answered from the shared Redis cache', registers });
    // Gauges read the queue when scraped; a Redis that does not answer leaves the last value.
    new Gauge({
      name: 'batchwise_queue_depth',
      help: 'Chunks on the queue by state (waiting, active, delayed); the worker autoscaler reads waiting',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        try {
          const c = await probe.counts();
          for (const [state, v] of Object.entries(c)) this.set({ state }, v);
        } catch {
          /* keep the last value */
        }
      },
    });
    new Gauge({
      name: 'batchwise_queue_workers',
      help: 'Worker connections listening on the chunk queue',
      registers,
      async collect() {
        try {
          this.set(await probe.workers());
        } catch {
          /* keep the last value */
        }
      },
    });
  }
}
