import type * as grpc from '@grpc/grpc-js';
import { ScenarioError } from '../../model/errors.js';

/**
 * Bytes that are not a protobuf encoding of the method's request. grpc-js ends such a call with
 * INTERNAL ("Error deserializing request") before any handler runs, which reads as the server's
 * fault; instead the deserializer hands the handler a marker, and the adapter refuses it as the
 * client's bad input (INVALID_ARGUMENT on field `request`).
 */
const MALFORMED = Symbol('malformed request');

interface Malformed {
  readonly [MALFORMED]: string;
}

export function withTolerantDeserializers(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, m] of Object.entries(service)) {
    const decode = m.requestDeserialize;
    out[name] = {
      ...m,
      requestDeserialize: (bytes: Buffer): unknown => {
        try {
          return decode(bytes);
        } catch (e) {
          const marker: Malformed = { [MALFORMED]: e instanceof Error ? e.message : String(e) };
          return marker;
        }
      },
    };
  }
  return out as grpc.ServiceDefinition;
}

/** Throws the client's error when the request could not be decoded. */
export function checkDecoded(request: unknown, rpc: string): void {
  if (typeof request === 'object' && request !== null && MALFORMED in request) {
    const reason = String((request as Malformed)[MALFORMED]).slice(0, 200);
    throw new ScenarioError('request', `is not a valid protobuf encoding of the ${rpc} request (${reason})`);
  }
}
