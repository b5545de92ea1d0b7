/**
 * The rich error model (google.rpc.Status in the trailer `grpc-status-details-bin`): every
 * INVALID_ARGUMENT carries a google.rpc.BadRequest naming the field, so clients in any language
 * read the field without parsing the message (proto/google/rpc/*.proto, served over reflection).
 * Echoed input can be long (an unknown key, a value shown in "got …"): the texts are cut to
 * bounded UTF-8 lengths, the message and `batchwise-field` too, so that all trailers together
 * stay under gRPC C-core's default 8 KB metadata limit (an unbounded message of 100 KB used to
 * leave the call hanging until its deadline: HTTP/2 refused the trailers).
 */
import { Code } from './status.js';
import { decodeFields, encodeMessage, type WireField } from './wire.js';

export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/**
 * Bounds, in UTF-8 bytes, of the texts sent: the details under 2.5 KB (3.3 KB as base64), the
 * message (percent-encoded in grpc-message: at most 3 KB) and the field (batchwise-field).
 */
export const DETAIL_BOUNDS = { field: 256, description: 1024, message: 1024 } as const;

export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

export interface DecodedStatus {
  readonly code: number;
  readonly message: string;
  readonly details: ReadonlyArray<{ readonly typeUrl: string; readonly value: Buffer }>;
}

/** `s` cut to at most `maxBytes` of UTF-8 at a character boundary, with "…" where it was cut. */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return s;
  const room = maxBytes - 3; // "…" is 3 bytes
  let used = 0;
  let out = '';
  for (const ch of s) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (used + n > room) break;
    used += n;
    out += ch;
  }
  return `${out}…`;
}

const nonEmpty = (no: number, s: string): WireField[] => (s === '' ? [] : [[no, s]]);

/** A serialized google.rpc.Status with one google.rpc.BadRequest listing `violations`, texts bounded. */
export function badRequestStatus(code: number, message: string, violations: readonly FieldViolation[]): Buffer {
  const badRequest = encodeMessage(
    violations.map((v) => [
      1,
      encodeMessage([...nonEmpty(1, truncateUtf8(v.field, DETAIL_BOUNDS.field)), ...nonEmpty(2, truncateUtf8(v.description, DETAIL_BOUNDS.description))]),
    ]),
  );
  const any = encodeMessage([[1, BAD_REQUEST_TYPE], [2, badRequest]]);
  return encodeMessage([...(code === 0 ? [] : [[1, code] as const]), ...nonEmpty(2, truncateUtf8(message, DETAIL_BOUNDS.message)), [3, any]]);
}

/** What a failed call sends: its message and field bounded, and for INVALID_ARGUMENT the serialized google.rpc.Status. */
export function failureTrailers(code: number, details: string, field: string | undefined): { details: string; field?: string; statusDetails?: Buffer } {
  return {
    details: truncateUtf8(details, DETAIL_BOUNDS.message),
    ...(field ? { field: truncateUtf8(field, DETAIL_BOUNDS.field) } : {}),
    ...(code === Code.INVALID_ARGUMENT ? { statusDetails: badRequestStatus(code, details, [violationOf(field ?? '', details)]) } : {}),
  };
}

/** The description of a violation: the details without the "field: " they start with. */
export function violationOf(field: string, details: string): FieldViolation {
  return { field, description: field !== '' && details.startsWith(`${field}: `) ? details.slice(field.length + 2) : details };
}

const text = (v: number | Buffer): string => (typeof v === 'number' ? '' : v.toString('utf8'));

/** google.rpc.Status from its bytes (for clients and tests). */
export function decodeStatus(buf: Uint8Array): DecodedStatus {
  let code = 0;
  let message = '';
  const details: Array<{ typeUrl: string; value: Buffer }> = [];
  for (const f of decodeFields(buf)) {
    if (f.no === 1 && typeof f.value === 'number') code = f.value;
    else if (f.no === 2) message = text(f.value);
    else if (f.no === 3 && typeof f.value !== 'number') {
      let typeUrl = '';
      let value: Buffer = Buffer.alloc(0);
      for (const a of decodeFields(f.value)) {
        if (a.no === 1) typeUrl = text(a.value);
        else if (a.no === 2 && typeof a.value !== 'number') value = a.value;
      }
      details.push({ typeUrl, value });
    }
  }
  return { code, message, details };
}

/** google.rpc.BadRequest's field violations from its bytes. */
export function decodeBadRequest(buf: Uint8Array): FieldViolation[] {
  return decodeFields(buf)
    .filter((f) => f.no === 1 && typeof f.value !== 'number')
    .map((f) => {
      let field = '';
      let description = '';
      for (const v of decodeFields(f.value as Buffer)) {
        if (v.no === 1) field = text(v.value);
        else if (v.no === 2) description = text(v.value);
      }
      return { field, description };
    });
}
