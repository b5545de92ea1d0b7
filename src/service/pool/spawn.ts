import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../threads/spawn.js';

/** A pool worker (worker.ts) with its setup modules and the shared cancel flag. */
export function startWorker(setupModules: readonly string[], cancelFlag: Int32Array): Worker {
  return startModuleWorker(import.meta.url, 'worker', { setupModules: [...setupModules], cancelFlag });
}
