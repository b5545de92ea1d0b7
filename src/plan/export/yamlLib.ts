import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');

const require = createRequire(import.meta.url);
let lib: Yaml | undefined;

/**
 * The yaml package, loaded on first use: only reading and merging serving configurations need
 * it, and loading it costs more CPU than anything else in `import('batchwise')` (issue 15).
 * Synchronous, so the readers stay synchronous; the package's Node entry is CommonJS either way.
 */
export function yaml(): Yaml {
  lib ??= require('yaml') as Yaml;
  return lib;
}
