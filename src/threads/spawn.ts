import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside the caller (`callerUrl` = the caller's
 * import.meta.url). Built code runs `<name>.js` directly. From sources (tests, tsx) the entry is
 * `<name>.ts`, which plain Node cannot load, so a small bootstrap registers tsx in the thread first.
 */
export function startModuleWorker(callerUrl: string, name: string, workerData: unknown): Worker {
  if (callerUrl.endsWith('.js')) return new Worker(new URL(`./${name}.js`, callerUrl), { workerData });
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const tsx = pathToFileURL(createRequire(callerUrl).resolve('tsx/esm/api')).href;
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true, workerData });
}
