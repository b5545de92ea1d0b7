import { LimitError } from '../../model/errors.js';
import type { ValidatedClassesScenario } from '../../model/classes/params.js';
import type { ClassesSolveResult } from '../../solve/classes/result.js';
import { solveClassesScenario, type ClassesWarmStart } from '../../solve/classes/solveClasses.js';
import type { JointGpuStage } from '../../solve/types.js';
import { classesStates } from '../config.js';
import { classesProgress, type ClassesProgress } from '../convert/classes.js';

/** A multi-class solve (docs/model.md §10) on a pool worker. */
export interface ClassesSolveJob {
  readonly scenario: ValidatedClassesScenario;
  /** Least time between progress messages; 0 = no progress. */
  readonly progressIntervalMs: number;
  /** The service's bound on joint states Π_c (S_c + 1), checked as the automatic box grows. */
  readonly maxStates: number;
  /** A neighbouring scenario's last box and values to start from (the coordinator's nearest). */
  readonly warmStart?: ClassesWarmStart;
}

/** The result, and the last box's values to warm-start a neighbour with. */
export interface ClassesJobResult {
  readonly result: ClassesSolveResult;
  readonly warm?: ClassesWarmStart;
}

/**
 * The classes solve with the service's bound on states: each box is checked before it is
 * solved, and one past the bound stops the solve with a LimitError (as the single-class job does
 * for its S). Progress carries the bounds and the box only (the joint policy can be large).
 * `jointStage`: a GPU batch's collector (in the main thread; never over the pool's wire).
 */
// The job's io and output are written out here (jobs.ts's JobIo and JobOutput, structurally): jobs.ts imports this module.
export async function runClassesSolveJob(
  job: ClassesSolveJob,
  io: { readonly signal: AbortSignal; progress(p: ClassesProgress): void },
  jointStage?: JointGpuStage,
): Promise<{ result: ClassesJobResult; transfer?: ArrayBuffer[] }> {
  const limit = new AbortController();
  const signal = AbortSignal.any([io.signal, limit.signal]);
  let box: readonly number[] = [];
  let overLimit: LimitError | undefined;
  let last = -Infinity;
  try {
    let warm: ClassesWarmStart | undefined;
    const result = await solveClassesScenario(job.scenario, {
      signal,
      ...(jointStage ? { jointStage } : {}),
      ...(job.warmStart ? { warmStart: job.warmStart } : {}),
      onValues: (w) => (warm = w),
      onBox: (S) => {
        box = S.slice();
        if (classesStates(S) > job.maxStates && !overLimit) {
          overLimit = new LimitError(
            'classes',
            `the solve needs ${classesStates(S)} joint states (maxQueue (${S.join(', ')})), above this server's maxStates = ${job.maxStates}` +
              ' (the load is too close to capacity for this server)',
          );
          limit.abort(overLimit);
        }
      },
      onProgress: (p) => {
        const now = performance.now();
        if (job.progressIntervalMs > 0 && now - last >= job.progressIntervalMs) {
          last = now;
          io.progress(classesProgress(p, box));
        }
      },
    });
    const values = (warm as ClassesWarmStart | undefined)?.values;
    return { result: { result, ...(warm ? { warm } : {}) }, ...(values && values.buffer instanceof ArrayBuffer ? { transfer: [values.buffer] } : {}) };
  } catch (e) {
    if (overLimit && !io.signal.aborted) throw overLimit;
    throw e;
  }
}
