import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../threads/spawn.js';
import type { BellmanOperator } from '../../solve/operator.js';
import { throwIfAborted } from '../errors.js';
import { axisSums, fillBox, stateValues, stepScratch, type Overflow, type StepScratch } from './bellman.js';
import type { ClassesModel } from './compile.js';

/** Control words shared with the workers. */
export const CTRL = { GEN: 0, PHASE: 1, DONE: 2, STOP: 3, ERROR: 4 } as const;

/** Below this many states a sweep is too short to share: the handshakes would cost more than they save. */
export const PARALLEL_MIN_STATES = 20_000;

/** Threads for a joint solve of this many states: every core the process may use (at most 8), or 1 when small. */
export function sweepThreads(states: number, requested?: number): number {
  if (requested !== undefined) return Math.max(1, Math.floor(requested));
  return states < PARALLEL_MIN_STATES ? 1 : Math.min(8, availableParallelism());
}

/** The buffers a sweep's threads share: values, gap and policy, the padded box and the per-axis sums. */
export interface SharedSweep {
  readonly ctrl: Int32Array;
  readonly h: Float64Array;
  readonly gap: Float64Array;
  readonly policy: Int32Array;
  readonly scratch: StepScratch;
}

const sharedF64 = (n: number) => new Float64Array(new SharedArrayBuffer(8 * Math.max(n, 1)), 0, n);

/** [lo, hi) of thread t of T over n items. */
export function block(n: number, t: number, T: number): [number, number] {
  return [Math.floor((n * t) / T), Math.floor((n * (t + 1)) / T)];
}

/** Phase p of a sweep for items [lo, hi): p ≥ 1 the per-axis sums of axis p over padded positions; 0 the states. */
export function runPhase(model: ClassesModel, sh: SharedSweep, phase: number, t: number, T: number, signal?: AbortSignal): void {
  if (phase > 0) {
    const [lo, hi] = block(sh.scratch.H.length, t, T);
    axisSums(model, sh.scratch, phase, lo, hi, signal);
  } else {
    const [lo, hi] = block(model.states, t, T);
    stateValues(model, sh.h, sh.gap, sh.policy, sh.scratch, lo, hi, signal);
  }
}

/**
 * The joint Bellman step over T threads (this one and T − 1 workers, parallelSweepWorker.ts): the
 * same three phases as classesStep (bellman.ts) on shared buffers, each phase split into blocks
 * and closed by a barrier on shared control words (Atomics), so a step stays synchronous and the
 * one RVI loop runs on it unchanged; the values are those of classesStep bit for bit (each entry
 * is computed by the same code from the same inputs). Close it to stop the workers.
 */
export class ParallelSweeps {
  private constructor(
    private readonly model: ClassesModel,
    private readonly sh: SharedSweep,
    private readonly workers: readonly Worker[],
  ) {}

  static async start(model: ClassesModel, threads: number): Promise<ParallelSweeps> {
    const sh: SharedSweep = {
      ctrl: new Int32Array(new SharedArrayBuffer(4 * 5)),
      h: sharedF64(model.states),
      gap: sharedF64(model.states),
      policy: new Int32Array(new SharedArrayBuffer(4 * Math.max(model.states, 1)), 0, model.states),
      scratch: stepScratch(model, sharedF64),
    };
    const workers: Worker[] = [];
    const ready: Promise<void>[] = [];
    for (let t = 1; t < threads; t++) {
      const w = startModuleWorker(import.meta.url, 'parallelSweepWorker', { model, shared: sh, t, T: threads });
      workers.push(w);
      ready.push(
        new Promise<void>((resolve, reject) => {
          w.once('message', () => resolve());
          w.once('error', reject);
          w.once('exit', (code) => reject(new Error(`sweep worker exited (code ${code}) before it was ready`)));
        }),
      );
    }
    try {
      await Promise.all(ready);
    } catch (e) {
      for (const w of workers) void w.terminate();
      throw e;
    }
    for (const w of workers) w.removeAllListeners();
    return new ParallelSweeps(model, sh, workers);
  }

  get threads(): number {
    return this.workers.length + 1;
  }

  operator(overflow: Overflow = 'extrapolate'): BellmanOperator {
    const { model } = this;
    return { states: model.states, referenceState: 0, maxQueue: Math.max(...model.S), step: (h, gap, policy, signal) => this.step(h, gap, policy, overflow, signal) };
  }

  private step(h: Float64Array, gap: Float64Array, policy: Int32Array, overflow: Overflow, signal?: AbortSignal): void {
    const { model, sh } = this;
    sh.h.set(h);
    fillBox(model, sh.h, sh.scratch, overflow);
    for (let x = model.C - 1; x >= 1; x--) this.phase(x, signal);
    this.phase(0, signal);
    gap.set(sh.gap);
    policy.set(sh.policy);
  }

  /** Starts phase p on the workers, runs block 0 here, and waits for the rest. */
  private phase(p: number, signal?: AbortSignal): void {
    const { ctrl } = this.sh;
    throwIfAborted(signal);
    Atomics.store(ctrl, CTRL.PHASE, p);
    Atomics.store(ctrl, CTRL.DONE, 0);
    Atomics.add(ctrl, CTRL.GEN, 1);
    Atomics.notify(ctrl, CTRL.GEN);
    runPhase(this.model, this.sh, p, 0, this.threads, signal);
    const need = this.workers.length;
    for (let d = Atomics.load(ctrl, CTRL.DONE); d < need; d = Atomics.load(ctrl, CTRL.DONE)) Atomics.wait(ctrl, CTRL.DONE, d);
    if (Atomics.load(ctrl, CTRL.ERROR) !== 0) throw new Error('a sweep worker failed; the joint step is not complete');
  }

  close(): void {
    Atomics.store(this.sh.ctrl, CTRL.STOP, 1);
    Atomics.add(this.sh.ctrl, CTRL.GEN, 1);
    Atomics.notify(this.sh.ctrl, CTRL.GEN);
    for (const w of this.workers) void w.terminate();
  }
}
