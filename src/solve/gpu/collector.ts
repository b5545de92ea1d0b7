import type { GpuRviJob } from './rvi.js';
import type { GpuStage, GpuStageResult } from './solver.js';

/**
 * Runs one batch of jobs on the device (batchedRvi with the context and flags bound);
 * undefined (for the batch or for one job) means no GPU stage: that solve goes on on the CPU.
 */
export type BatchRunner = (jobs: readonly GpuRviJob[]) => Promise<readonly (GpuStageResult | undefined)[] | undefined>;

interface Waiting {
  readonly job: GpuRviJob;
  readonly resolve: (r: GpuStageResult | undefined) => void;
  readonly reject: (e: unknown) => void;
}

/**
 * Gathers the f32 stages of concurrent solves into shared GPU batches. Each solve of a
 * batched request joins, submits its model when its CPU-side work (validation, choosing S,
 * evaluation) reaches the solver, and leaves when done. A batch runs as soon as every
 * participant that is not already in flight is waiting, so scenarios that need a bigger S
 * are re-batched together; one batch runs at a time, the device being a single resource.
 */
export class BatchCollector {
  private participants = 0;
  private waiting: Waiting[] = [];
  private running = false;
  private checkPending = false;
  /** Batches run so far and their sizes (for tests and the benchmark). */
  readonly batchSizes: number[] = [];

  constructor(private readonly run: BatchRunner) {}

  join(): void {
    this.participants++;
  }

  leave(): void {
    this.participants--;
    this.maybeRun();
  }

  /** The GpuStage to give each participant's solver. */
  readonly stage: GpuStage = (job) =>
    new Promise<GpuStageResult | undefined>((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      this.maybeRun();
    });

  /**
   * Checks for a round on the next macrotask, not now: a participant can reach its submit
   * synchronously (no await between joining and submitting), before the others have joined.
   */
  private maybeRun(): void {
    if (this.checkPending) return;
    this.checkPending = true;
    setImmediate(() => {
      this.checkPending = false;
      this.runIfAllWaiting();
    });
  }

  private runIfAllWaiting(): void {
    if (this.running || this.waiting.length === 0 || this.waiting.length < this.participants) return;
    const batch = this.waiting;
    this.waiting = [];
    this.running = true;
    this.batchSizes.push(batch.length);
    this.run(batch.map((w) => w.job)).then(
      (results) => batch.forEach((w, i) => w.resolve(results?.[i])),
      (e: unknown) => batch.forEach((w) => w.reject(e)),
    ).finally(() => {
      this.running = false;
      // Participants that submitted during the run may all be waiting now.
      this.maybeRun();
    });
  }
}
