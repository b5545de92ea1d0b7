import type { ValidatedScenario } from '../../model/scenario.js';
import type { SolveResult } from '../../solve/result.js';
import type { WarmStart } from '../../solve/solveScenario.js';
import type { JointGpuStage, SolverProgress } from '../../solve/types.js';
import { canonicalKey } from '../cache/canonical.js';
import type { SolutionCache } from '../cache/solutionCache.js';
import type { WorkerPool } from '../pool/workerPool.js';
import { AbortError } from '../../model/errors.js';
import { Flights } from './flights.js';
import { JOBS } from '../pool/jobs.js';
import { runClassesSolveJob } from '../pool/classesJob.js';
import { SerialLane } from './serialLane.js';
import { policyOf } from '../../solve/result.js';
import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import type { ClassesSolveResult } from '../../solve/classes/result.js';
import type { ClassesProgress } from '../convert/classes.js';
import type { LatencyOutcome } from '../../latency/summary.js';
import { classesCanonicalKey, classesResultBytes, classesShapeKey } from '../cache/classesKey.js';
import type { ClassesWarmStart } from '../../solve/classes/solveClasses.js';
import { LruMap } from '../cache/lru.js';

/** Bounds of the classes cache: entries, and bytes of their policy tables. */
const CLASSES_CACHE_ENTRIES = 256;
const CLASSES_CACHE_BYTES = 64 * 1024 * 1024;
/** Shapes whose last values are kept to warm-start neighbours (the same byte bound). */
const CLASSES_WARM_SHAPES = 32;

/** A result without its percentiles (and without the reason they are missing). */
export function withoutPercentiles(r: SolveResult): SolveResult {
  if (r.latency === undefined && r.latencyUnavailable === undefined) return r;
  const { latency: _l, latencyUnavailable: _u, ...rest } = r;
  return rest;
}

export interface SolveOutcome {
  readonly result: SolveResult;
  readonly warmStart: { readonly values: Float64Array; readonly policy: Int32Array };
  /** Answered from the cache, no solve. */
  readonly cached: boolean;
  /** Joined an identical solve already running for another caller. */
  readonly shared: boolean;
  /** The solve started from another solution. */
  readonly warmStarted: boolean;
  /** The scenario's canonical cache key (withPercentiles takes it, so it is not computed again). */
  readonly key: string;
}

export interface CoordinatedSolveOptions {
  readonly signal: AbortSignal;
  readonly onProgress?: (p: SolverProgress) => void;
  /** Least time between progress messages from the worker. */
  readonly progressIntervalMs?: number;
  /** A solution to start from; `none` for a cold solve; default: the nearest cached one of the same shape. */
  readonly warmStart?: WarmStart | 'none';
  /** Apply the pool's queue bounds (single solves) or not (batches pace themselves). */
  readonly bounded?: boolean;
  /** The call's flow and peer in the pool's fair queue (a shared solve keeps its first caller's). */
  readonly flow?: string;
  readonly peer?: string;
  /** Response-time percentiles in the result (default false: the call says). */
  readonly percentiles?: boolean;
}

/** What the coordinator reports (metrics listen here). */
export interface CoordinatorEvents {
  onCache(hit: boolean): void;
  onShared(): void;
  onSolved(result: SolveResult, warmStarted: boolean): void;
}


/**
 * Every solve goes through here: identical scenarios (canonical form) are answered from the
 * cache; concurrent identical requests share one solve, which is aborted only when its last
 * caller gives up; a new solve starts from the nearest cached solution of the same shape.
 */
export class SolveCoordinator {
  private readonly flights = new Flights<{ result: SolveResult; warmStart: SolveOutcome['warmStart'] }, SolverProgress>();
  private readonly classesFlights = new Flights<ClassesSolveResult, ClassesProgress>();
  /** Single solves with backend GPU, one at a time: the device belongs to the main thread. */
  private readonly gpuLane = new SerialLane();
  /** Multi-class results by canonical key (they warm-start nothing, so results alone are kept). */
  private readonly classesCache = new LruMap<string, ClassesSolveResult>(CLASSES_CACHE_ENTRIES, CLASSES_CACHE_BYTES, classesResultBytes);
  /** The last solved classes scenario's box and values per shape (classesShapeKey): a neighbour's warm start. */
  private readonly classesWarm = new LruMap<string, ClassesWarmStart>(CLASSES_WARM_SHAPES, CLASSES_CACHE_BYTES, (w) => w.values.byteLength);

  constructor(
    private readonly pool: WorkerPool,
    private readonly cache: SolutionCache,
    private readonly maxStates: number,
    private readonly events: CoordinatorEvents,
    /** Where a failed percentile computation is reported (the result still goes out, saying why it has none). */
    private readonly onLatencyFailure: (err: unknown) => void = () => {},
  ) {}

  get inFlight(): number {
    return this.flights.size + this.classesFlights.size;
  }

  async solve(scenario: ValidatedScenario, opts: CoordinatedSolveOptions): Promise<SolveOutcome> {
    const out = await this.solveCertified(scenario, opts);
    return { ...out, result: await this.withPercentiles(scenario, out.result, out.warmStart.policy, opts, out.key) };
  }

  /**
   * The certified result as the cache or the solve has it: with the percentiles when a cached
   * entry or the solve (asked with `percentiles`) already computed them, else without. Solve
   * streams this before it waits for withPercentiles (src/service/handlers/solve.ts).
   */
  async solveCertified(scenario: ValidatedScenario, opts: CoordinatedSolveOptions): Promise<SolveOutcome> {
    const key = canonicalKey(scenario);
    const hit = this.cache.get(key);
    this.events.onCache(hit !== undefined);
    if (hit) return { result: hit.result, warmStart: hit.warmStart, cached: true, shared: false, warmStarted: false, key };

    const running = this.flights.running(key);
    if (running) this.events.onShared();
    const flight = running ?? this.start(key, scenario, opts);
    const out = await this.flights.follow(flight, opts.signal, opts.onProgress);
    return { ...out, cached: false, shared: running !== undefined, warmStarted: flight.warmStarted, key };
  }

  /**
   * A result as the caller asked for it: without the percentiles, or with them, filled in by a
   * `latency` job when the result came without (a cached or shared solve by a caller that skipped
   * them, a GPU solve); the cache entry then keeps them for the next caller, and an identical
   * scenario of the same batch, answered by the same solve, takes them from there.
   */
  async withPercentiles(
    scenario: ValidatedScenario,
    result: SolveResult,
    policy: Int32Array | undefined,
    opts: Pick<CoordinatedSolveOptions, 'percentiles' | 'signal' | 'flow' | 'peer'>,
    key = canonicalKey(scenario),
  ): Promise<SolveResult> {
    if (opts.percentiles !== true) return withoutPercentiles(result);
    if (result.latency || result.latencyUnavailable !== undefined) return result;
    // The same solve's result, filled in already for an identical scenario of the batch: no second job.
    const filledBefore = this.cache.get(key);
    if (filledBefore?.result.latency && filledBefore.result.solver === result.solver) return filledBefore.result;
    const B = scenario.params.maxBatchSize;
    const pol = policy ? { phases: scenario.params.arrivalProcess?.phases ?? 1, actions: policy, tailBatch: B } : policyOf(result.policy, B);
    const job = { scenario, policy: pol, maxQueue: result.solver.maxQueue };
    let figures: LatencyOutcome;
    try {
      figures = await this.pool.submit('latency', job, { signal: opts.signal, bounded: false, flow: opts.flow, peer: opts.peer });
    } catch (e) {
      // The call's own end (cancelled, deadline) stays its status; anything else (a worker lost, a
      // bug) costs this result its percentiles, not the call: a batch keeps streaming.
      if (opts.signal?.aborted || e instanceof AbortError) throw e;
      this.onLatencyFailure(e);
      return { ...result, latencyUnavailable: `the percentile computation failed (${e instanceof Error ? e.message : String(e)})` };
    }
    const filled: SolveResult = { ...result, ...figures };
    const entry = this.cache.get(key);
    if (entry && entry.result.solver === result.solver) this.cache.store(scenario, filled, entry.warmStart, key);
    return filled;
  }

  /**
   * A multi-class solve (docs/model.md §10) on the pool, queued like a single solve (with the
   * queue bounds unless `bounded: false`, as for a batch), cancelled with its last caller; a
   * scenario solved before (same canonical form) is answered from the classes cache, and concurrent
   * identical ones share one solve, which starts from the last solved scenario of the same shape
   * (its box and values). Backend GPU runs in this thread, where the device is, one at a time (as
   * single solves do); with `jointStage` (a GPU batch's collector, src/solve/gpuBatch.ts) in this
   * thread through it, and alone: a solve of a batch waiting on one outside its collector's rounds
   * would hold those rounds up.
   */
  async solveClasses(
    scenario: ValidatedClassesScenario,
    opts: Pick<CoordinatedSolveOptions, 'signal' | 'progressIntervalMs' | 'bounded' | 'flow' | 'peer'> & { readonly onProgress?: (p: ClassesProgress) => void; readonly jointStage?: JointGpuStage },
  ): Promise<{ readonly result: ClassesSolveResult; readonly cached: boolean; readonly shared: boolean; readonly warmStarted: boolean }> {
    const key = classesCanonicalKey(scenario);
    const hit = this.classesCache.get(key);
    this.events.onCache(hit !== undefined);
    if (hit) return { result: hit, cached: true, shared: false, warmStarted: false };
    const shape = classesShapeKey(scenario);
    const warmStart = this.classesWarm.get(shape);
    const job = { scenario, progressIntervalMs: opts.progressIntervalMs ?? 0, maxStates: this.maxStates, ...(warmStart ? { warmStart } : {}) };
    const solve = (signal: AbortSignal, onProgress: (p: ClassesProgress) => void): Promise<ClassesSolveResult> => {
      const run = opts.jointStage
        ? runClassesSolveJob(job, { signal, progress: onProgress }, opts.jointStage).then((o) => o.result)
        : scenario.solver.backend === 'GPU'
          ? this.gpuLane.run(() => JOBS.classesSolve(job, { signal, progress: onProgress }).then((o) => o.result), signal)
          : this.pool.submit('classesSolve', job, { signal, bounded: opts.bounded ?? true, onProgress, flow: opts.flow, peer: opts.peer });
      return run.then(({ result, warm }) => {
        this.classesCache.set(key, result);
        if (warm) this.classesWarm.set(shape, warm);
        return result;
      });
    };
    if (opts.jointStage) return { result: await solve(opts.signal, (p) => opts.onProgress?.(p)), cached: false, shared: false, warmStarted: warmStart !== undefined };
    const running = this.classesFlights.running(key);
    if (running) this.events.onShared();
    const flight = running ?? this.classesFlights.start(key, solve, warmStart !== undefined);
    const result = await this.classesFlights.follow(flight, opts.signal, opts.onProgress);
    return { result, cached: false, shared: running !== undefined, warmStarted: flight.warmStarted };
  }

  private start(key: string, scenario: ValidatedScenario, opts: CoordinatedSolveOptions) {
    const warm = opts.warmStart === 'none' ? undefined : (opts.warmStart ?? this.cache.nearest(scenario));
    // Backend GPU solves here, on the main thread: its percentiles, if wanted, come after from the pool (withPercentiles).
    const percentiles = opts.percentiles === true && scenario.solver.backend !== 'GPU';
    const job = { scenario, warmStart: warm, progressIntervalMs: opts.progressIntervalMs ?? 0, maxStates: this.maxStates, percentiles };
    return this.flights.start(
      key,
      (signal, onProgress) => {
        // Backend GPU runs where the device is, in this thread; everything else on the worker pool.
        const run =
          scenario.solver.backend === 'GPU'
            ? this.gpuLane.run(() => JOBS.solve(job, { signal, progress: onProgress }).then((o) => o.result), signal)
            : this.pool.submit('solve', job, { signal, bounded: opts.bounded, onProgress, flow: opts.flow, peer: opts.peer });
        return run.then((out) => {
          this.cache.store(scenario, out.result, out.warmStart, key);
          this.events.onSolved(out.result, warm !== undefined);
          return out;
        });
      },
      warm !== undefined,
    );
  }
}
