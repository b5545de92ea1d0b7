import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DESCRIPTOR_SET, PROTOC_VERSION, compileDescriptorSet, findProtoc } from '../../scripts/descriptors.js';
import { descriptorFiles } from '../../src/service/reflection.js';
import { decodeFields } from '../../src/service/rpc/wire.js';

/**
 * proto/descriptors.binpb (what reflection serves) against the proto files: it holds every one
 * of them, and protoc compiles them to the same bytes today. The second needs protoc (Debian:
 * protobuf-compiler libprotobuf-dev); BATCHWISE_PROTOC=required (CI) makes a missing or other
 * protoc a failure, as BATCHWISE_GPU=required does for the GPU tests.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const required = process.env.BATCHWISE_PROTOC === 'required';

function protocForTests(): { protoc?: Exclude<ReturnType<typeof findProtoc>, string>; skip: string } {
  const found = findProtoc();
  const reason = typeof found === 'string' ? found : found.version !== PROTOC_VERSION ? `${found.version}, not ${PROTOC_VERSION} that made the committed set` : '';
  if (reason === '' && typeof found !== 'string') return { protoc: found, skip: '' };
  if (required) throw new Error(`BATCHWISE_PROTOC=required: ${reason}`);
  console.warn(`descriptor set check skipped: ${reason}`);
  return { skip: ` (skipped: ${reason})` };
}

function protoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? protoFiles(p) : name.endsWith('.proto') ? [relative(join(root, 'proto'), p)] : [];
  });
}

const p = protocForTests();

describe(`the descriptor set reflection serves${p.skip}`, () => {
  it('holds every .proto file of proto/', () => {
    const names = descriptorFiles().map((f) => String(decodeFields(f).find((x) => x.no === 1)!.value));
    expect(names).toEqual(expect.arrayContaining(protoFiles(join(root, 'proto'))));
  });

  it.skipIf(!p.protoc)(`is what protoc makes of the proto files now (else: node --import tsx scripts/descriptors.ts)`, () => {
    const fresh = compileDescriptorSet(p.protoc!);
    expect(readFileSync(join(root, DESCRIPTOR_SET)).equals(fresh), `${DESCRIPTOR_SET} is stale: node --import tsx scripts/descriptors.ts`).toBe(true);
  });
});
