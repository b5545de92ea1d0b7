import type { GpuJointJob } from './jointRvi.js';
import type { GpuRviJob } from './rvi.js';
import type { GpuStage, GpuStageResult } from './solver.js';

/**
 * The kinds of job a round can hold, each run by its own batched runner: the (queue, phase)
 * model's f32 stage (batchedRvi), the joint model's (batchedJointRvi), and the joint model's
 * residual evaluations (refine.ts), a kind of their own since they never share a joint batch
 * with stage jobs (jointRvi.ts) and run under other stop flags.
 */
export interface JobKinds {
  readonly single: GpuRviJob;
  readonly joint: GpuJointJob;
  readonly residual: GpuJointJob;
}
export type JobKind = keyof JobKinds;

/** The order a round runs its kinds in. */
const KINDS: readonly JobKind[] = ['single', 'joint', 'residual'];

/**
 * Runs one batch of one kind's jobs on the device (its batched runner with the context and flags
 * bound); undefined (for the batch or for one job) means no GPU stage: that solve goes on on the CPU.
 */
export type BatchRunner<J> = (jobs: readonly J[]) => Promise<readonly (GpuStageResult | undefined)[] | undefined>;

/** A runner per kind; a kind without one gets no GPU stage. */
export type BatchRunners = { readonly [K in JobKind]?: BatchRunner<JobKinds[K]> };

/** One batch a round ran: its kind, its number of jobs, and the scenarios they belong to (those submitted with one). */
export interface BatchRecord {
  readonly kind: JobKind;
  readonly size: number;
  readonly scenarios: readonly number[];
}

interface Waiting<K extends JobKind> {
  readonly job: JobKinds[K];
  /** Whose job it is (the batched solve's scenario index), when the submitter says. */
  readonly scenario?: number;
  readonly resolve: (r: GpuStageResult | undefined) => void;
  readonly reject: (e: unknown) => void;
}

type Queues = { [K in JobKind]: Waiting<K>[] };

const emptyQueues = (): Queues => ({ single: [], joint: [], residual: [] });

/**
 * Gathers the f32 stages of concurrent solves, of every model kind, into shared GPU batches.
 * Each solve of a batched request joins, submits its jobs when its CPU-side work (validation,
 * choosing S, evaluation, a refinement's f64 step) reaches the GPU, and leaves when done. A round
 * runs as soon as every participant that is not already in flight is waiting: the waiting jobs
 * of each kind in one batch of that kind, kind after kind, each kind's solves going on as soon
 * as their batch is done; so scenarios that need a bigger S are re-batched together. One batch
 * runs at a time, the device being a single resource.
 */
export class BatchCollector {
  private participants = 0;
  private waiting = emptyQueues();
  private running = false;
  private checkPending = false;
  /** Batches run so far, each with its kind and size (for tests, the benchmark and the service's metrics). */
  readonly batches: BatchRecord[] = [];

  constructor(
    private readonly runners: BatchRunners,
    private readonly onBatch?: (batch: BatchRecord) => void,
  ) {}

  /** The sizes of the batches run so far, of every kind. */
  get batchSizes(): number[] {
    return this.batches.map((b) => b.size);
  }

  join(): void {
    this.participants++;
  }

  leave(): void {
    this.participants--;
    this.maybeRun();
  }

  /** Waits for a round to run this job in a batch of its kind; `scenario` names whose job it is in the batch's record. */
  submit<K extends JobKind>(kind: K, job: JobKinds[K], scenario?: number): Promise<GpuStageResult | undefined> {
    return new Promise<GpuStageResult | undefined>((resolve, reject) => {
      (this.waiting[kind] as Waiting<K>[]).push({ job, scenario, resolve, reject });
      this.maybeRun();
    });
  }

  /** The single-class GpuStage to give each participant's solver. */
  readonly stage: GpuStage = (job) => this.submit('single', job);

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
    const waiting = KINDS.reduce((n, k) => n + this.waiting[k].length, 0);
    if (this.running || waiting === 0 || waiting < this.participants) return;
    const round = this.waiting;
    this.waiting = emptyQueues();
    this.running = true;
    void (async () => {
      for (const kind of KINDS) if (round[kind].length > 0) await this.runBatch(kind, round[kind]);
    })().finally(() => {
      this.running = false;
      // Participants that submitted during the round may all be waiting now.
      this.maybeRun();
    });
  }

  private async runBatch<K extends JobKind>(kind: K, batch: readonly Waiting<K>[]): Promise<void> {
    const record: BatchRecord = { kind, size: batch.length, scenarios: batch.flatMap((w) => (w.scenario === undefined ? [] : [w.scenario])) };
    this.batches.push(record);
    this.onBatch?.(record);
    const run: BatchRunners[K] = this.runners[kind];
    try {
      const results = run ? await run(batch.map((w) => w.job)) : undefined;
      batch.forEach((w, i) => w.resolve(results?.[i]));
    } catch (e) {
      batch.forEach((w) => w.reject(e));
    }
  }
}
