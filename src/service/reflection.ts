/**
 * Server reflection with the descriptors protoc makes. proto-loader's descriptors (what
 * @grpc/reflection serves by default) are rebuilt from protobufjs and differ from protoc's:
 * camelCase field names, a map entry named like its value type, proto3 `optional` as a plain
 * oneof, no comments; clients such as Python's descriptor pool or grpcurl cannot load them.
 * So the server hands out proto/descriptors.binpb, compiled by protoc (scripts/descriptors.ts):
 * the service's proto, google/rpc (the error details) with google/protobuf/any.proto, and the
 * health and reflection protos. @grpc/reflection still answers the protocol: it indexes the
 * files it is given (by each entry's `fileDescriptorProtos`) and re-encodes them unchanged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoRoot } from './proto.js';
import { decodeFields } from './rpc/wire.js';

/** The descriptor set's path inside proto/. */
export const DESCRIPTOR_SET_FILE = 'descriptors.binpb';

/** The serialized FileDescriptorProtos of the set, in protoc's order (each file after its imports). */
export function descriptorFiles(): Buffer[] {
  const set = readFileSync(join(protoRoot(), DESCRIPTOR_SET_FILE));
  return decodeFields(set)
    .filter((f) => f.no === 1)
    .map((f) => {
      if (typeof f.value === 'number') throw new Error(`${DESCRIPTOR_SET_FILE}: field 1 is not a FileDescriptorProto`);
      return Buffer.from(f.value);
    });
}

/** grpc.reflection.v1 and v1alpha over the protoc descriptors, listing every service in them. */
export function reflectionService(): ReflectionService {
  // One package-definition entry carrying all the files: all @grpc/reflection reads of it.
  const entry = { format: 'Protocol Buffer 3 DescriptorProto', type: {}, fileDescriptorProtos: descriptorFiles() };
  return new ReflectionService({ 'batchwise.descriptors': entry } as unknown as protoLoader.PackageDefinition);
}
