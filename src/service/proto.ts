import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';

/** Path of the service contract inside the package. */
export const PROTO_FILE = 'batchwise/v1/batchwise.proto';
export const SERVICE_NAME = 'batchwise.v1.BatchingPolicy';

/**
 * The `proto/` folder. Searched upwards because this module runs both from `src/service`
 * (tests, tsx) and from `dist/src/service` (the built package), at different depths.
 */
export function protoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, PROTO_FILE))) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`cannot find proto/${PROTO_FILE} above ${fileURLToPath(import.meta.url)}`);
}

/**
 * Loads the contract. `defaults` decides how absent fields decode: the server loads with
 * `false` so that an unset field stays absent and the validator can say "is required";
 * clients load with `true` so that zero-valued results (proto3 omits them) read as 0.
 */
export function loadPackageDefinition(opts: { defaults: boolean }): protoLoader.PackageDefinition {
  return protoLoader.loadSync(PROTO_FILE, {
    includeDirs: [protoRoot()],
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: opts.defaults,
    arrays: opts.defaults,
    oneofs: false,
  });
}
