/**
 * Writes proto/descriptors.binpb: the FileDescriptorSet the server hands out over reflection,
 * compiled by protoc itself (`--include_imports --include_source_info`), so that what clients
 * load is what protoc would give them: map entries, json_name, synthetic oneofs of proto3
 * `optional`, comments. It holds the service's own proto, the google/rpc files its error details
 * use (with google/protobuf/any.proto), and the health and reflection protos it also serves.
 *
 *   node --import tsx scripts/descriptors.ts          # rewrite proto/descriptors.binpb
 *   node --import tsx scripts/descriptors.ts --check  # exit 1 if it is out of date
 *
 * Needs protoc ≥ 3.15 and its well-known types (Debian: protobuf-compiler libprotobuf-dev; or
 * PROTOC=/path/to/protoc, PROTOC_INCLUDE=/path/to/include). The committed file was made with
 * PROTOC_VERSION; test/service/descriptors.test.ts regenerates it and compares.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The protoc the committed set was made with (Debian bookworm's, as CI installs it). */
export const PROTOC_VERSION = 'libprotoc 3.21.12';
export const DESCRIPTOR_SET = 'proto/descriptors.binpb';

/** The files compiled, by their names inside the set (imports come along). */
export const INPUTS = [
  'batchwise/v1/batchwise.proto',
  'google/rpc/status.proto',
  'google/rpc/error_details.proto',
  'grpc/health/v1/health.proto',
  'grpc/reflection/v1/reflection.proto',
  'grpc/reflection/v1alpha/reflection.proto',
] as const;

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

export interface Protoc {
  readonly bin: string;
  readonly version: string;
  /** Where google/protobuf/any.proto and the other well-known types are. */
  readonly include: string;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return realpathSync(p);
  }
  return undefined;
}

/** The protoc to use, or why there is none. */
export function findProtoc(): Protoc | string {
  const bin = process.env.PROTOC ?? onPath('protoc');
  if (!bin) return 'no protoc on PATH (Debian: apt-get install protobuf-compiler libprotobuf-dev; or set PROTOC)';
  const run = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (run.status !== 0) return `${bin} --version failed: ${run.stderr || run.error?.message}`;
  const version = run.stdout.trim();
  const include = process.env.PROTOC_INCLUDE ?? join(dirname(dirname(bin)), 'include');
  if (!existsSync(join(include, 'google/protobuf/any.proto'))) {
    return `no google/protobuf/any.proto under ${include} (Debian: apt-get install libprotobuf-dev; or set PROTOC_INCLUDE)`;
  }
  return { bin, version, include };
}

/** Compiles INPUTS with `protoc` and returns the serialized FileDescriptorSet. */
export function compileDescriptorSet(protoc: Protoc): Buffer {
  const work = mkdtempSync(join(tmpdir(), 'batchwise-descriptors-'));
  try {
    // grpc-health-check ships health.proto as health/v1/health.proto; serve it under its canonical name.
    const health = join(work, 'grpc/health/v1/health.proto');
    mkdirSync(dirname(health), { recursive: true });
    copyFileSync(require('grpc-health-check').protoPath as string, health);
    const reflection = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build', 'proto');
    const out = join(work, 'set.binpb');
    const includes = [join(root, 'proto'), work, reflection, protoc.include].map((d) => `-I${d}`);
    const run = spawnSync(protoc.bin, [...includes, '--include_imports', '--include_source_info', `--descriptor_set_out=${out}`, ...INPUTS], {
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`protoc failed: ${run.stderr || run.error?.message}`);
    return readFileSync(out);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function main(check: boolean): number {
  const protoc = findProtoc();
  if (typeof protoc === 'string') {
    process.stderr.write(`${protoc}\n`);
    return 2;
  }
  if (protoc.version !== PROTOC_VERSION) process.stderr.write(`note: ${protoc.version}, the committed set was made with ${PROTOC_VERSION}\n`);
  const set = compileDescriptorSet(protoc);
  const path = join(root, DESCRIPTOR_SET);
  if (!check) {
    writeFileSync(path, set);
    return 0;
  }
  if (!readFileSync(path).equals(set)) {
    process.stderr.write(`${DESCRIPTOR_SET} is out of date: run node --import tsx scripts/descriptors.ts\n`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.includes('--check'));
