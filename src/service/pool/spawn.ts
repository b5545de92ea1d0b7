import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Built code runs `worker.js` directly. From sources (tests, tsx) the entry is `worker.ts`,
 * which plain Node cannot load, so a small bootstrap registers tsx in the thread first.
 */
export function startWorker(setupModules: readonly string[], cancelFlag: Int32Array): Worker {
  const workerData = { setupModules: [...setupModules], cancelFlag };
  if (import.meta.url.endsWith('.js')) return new Worker(new URL('./worker.js', import.meta.url), { workerData });
  const entry = new URL('./worker.ts', import.meta.url).href;
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href;
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData });
}
