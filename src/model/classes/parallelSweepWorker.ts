import { parentPort, workerData } from 'node:worker_threads';
import type { ClassesModel } from './compile.js';
import { CTRL, runPhase, type SharedSweep } from './parallelStep.js';

/**
 * One of ParallelSweeps' worker threads: waits for each phase on the shared control words, runs
 * its block, and counts itself done. A failure sets the error word (the main thread throws) and
 * still counts, so the main thread never waits forever.
 */
const { model, shared, t, T } = workerData as { model: ClassesModel; shared: SharedSweep; t: number; T: number };
const { ctrl } = shared;
let gen = Atomics.load(ctrl, CTRL.GEN);
parentPort?.postMessage('ready');
for (;;) {
  Atomics.wait(ctrl, CTRL.GEN, gen);
  gen = Atomics.load(ctrl, CTRL.GEN);
  if (Atomics.load(ctrl, CTRL.STOP) !== 0) break;
  try {
    runPhase(model, shared, Atomics.load(ctrl, CTRL.PHASE), t, T);
  } catch (e) {
    Atomics.store(ctrl, CTRL.ERROR, 1);
    parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) });
  }
  Atomics.add(ctrl, CTRL.DONE, 1);
  Atomics.notify(ctrl, CTRL.DONE);
}
