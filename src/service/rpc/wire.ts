/**
 * The few pieces of the protobuf wire format the service writes and reads by hand: messages of
 * unsigned varints, strings and bytes (google.rpc.Status and its details), and the top-level
 * fields of a message (the files of a FileDescriptorSet). Enough for those, not a general codec.
 */

/** A field to write: its number and a value (non-negative integer → varint, string → UTF-8, bytes → as is). */
export type WireField = readonly [number, number | string | Uint8Array];

function varint(n: number): number[] {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`varint out of range: ${n}`);
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/** A message of `fields`, in the order given (fields equal to their default are written too, so leave them out). */
export function encodeMessage(fields: readonly WireField[]): Buffer {
  const parts: Buffer[] = [];
  for (const [no, value] of fields) {
    if (typeof value === 'number') {
      parts.push(Buffer.from([...varint(no * 8), ...varint(value)]));
      continue;
    }
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    parts.push(Buffer.from([...varint(no * 8 + 2), ...varint(bytes.length)]), bytes);
  }
  return Buffer.concat(parts);
}

/** One field read back: varints as numbers (up to 2^53), length-delimited fields as bytes. */
export interface ReadField {
  readonly no: number;
  readonly value: number | Buffer;
}

/** The top-level fields of a message, in wire order (fixed-width fields as their raw bytes). */
export function decodeFields(buf: Uint8Array): ReadField[] {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: ReadField[] = [];
  let pos = 0;
  const readVarint = (): number => {
    let n = 0;
    let scale = 1;
    for (;;) {
      if (pos >= bytes.length) throw new RangeError('truncated varint');
      const b = bytes[pos++];
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
    }
  };
  const take = (len: number): Buffer => {
    if (pos + len > bytes.length) throw new RangeError('truncated field');
    const v = bytes.subarray(pos, pos + len);
    pos += len;
    return v;
  };
  while (pos < bytes.length) {
    const key = readVarint();
    const no = Math.floor(key / 8);
    const wire = key % 8;
    if (wire === 0) out.push({ no, value: readVarint() });
    else if (wire === 2) out.push({ no, value: take(readVarint()) });
    else if (wire === 1) out.push({ no, value: take(8) });
    else if (wire === 5) out.push({ no, value: take(4) });
    else throw new RangeError(`unsupported wire type ${wire}`);
  }
  return out;
}
