// How many protobuf messages an OTLP export holds, counted before it is decoded (decoding makes a
// JavaScript object of every one: model.ts MAX_EXPORT_MESSAGES). The count walks the bytes once
// (linear, nothing allocated), descending only into the fields the schema says are messages,
// and stops as soon as it passes the limit.
import { Type } from "protobufjs/light";

/** A base-128 varint at `pos` as [value, next position]; null when it runs past `end`. */
function varint(buf: Uint8Array, pos: number, end: number): [number, number] | null {
  let value = 0;
  for (let shift = 1; pos < end; shift *= 128) {
    const byte = buf[pos++];
    value += (byte & 0x7f) * shift;
    if (byte < 0x80) return [value, pos];
    if (shift > 2 ** 63) return null;
  }
  return null;
}

/**
 * True when the message of `type` in `buf[start, end)` holds more than `limit` messages in all
 * (itself excluded). Malformed bytes end the count early: the decoder reports them.
 */
export function holdsMoreMessagesThan(buf: Uint8Array, type: Type, limit: number): boolean {
  let left = limit;
  // an explicit stack instead of recursion: [type, end of its bytes]
  const stack: [Type, number][] = [[type, buf.length]];
  let pos = 0;
  while (stack.length) {
    const [current, end] = stack[stack.length - 1];
    if (pos >= end) {
      stack.pop();
      continue;
    }
    const tag = varint(buf, pos, end);
    if (!tag) return false;
    pos = tag[1];
    const wire = tag[0] % 8;
    const field = wire === 2 ? current.fieldsById[Math.floor(tag[0] / 8)] : undefined;
    if (field?.resolvedType instanceof Type) {
      const length = varint(buf, pos, end);
      if (!length || length[1] + length[0] > end) return false;
      pos = length[1];
      if (--left < 0) return true;
      if (stack.length <= 100) {
        stack.push([field.resolvedType, pos + length[0]]); // its fields next; the stack pops back to here at its end
        continue;
      }
      pos += length[0];
    } else {
      // any other field, or a group (unknown to OTLP; the decoder skips it): skipped, and the fields after it counted
      const next = skipValue(buf, pos, end, wire);
      if (next === null) return false;
      pos = next;
    }
  }
  return false;
}

/**
 * The position after a field's value of `wire` type starting at `pos` (a group with its end
 * tag); null when malformed, or for an end tag with no group open.
 */
function skipValue(buf: Uint8Array, pos: number, end: number, wire: number): number | null {
  if (wire === 0) return varint(buf, pos, end)?.[1] ?? null;
  if (wire === 1) return pos + 8;
  if (wire === 5) return pos + 4;
  if (wire === 2) {
    const length = varint(buf, pos, end);
    return !length || length[1] + length[0] > end ? null : length[1] + length[0];
  }
  if (wire !== 3) return null;
  for (let depth = 1; depth > 0; ) {
    const tag = varint(buf, pos, end);
    if (!tag) return null;
    const inner = tag[0] % 8;
    if (inner === 3) depth++;
    if (inner === 4) depth--;
    const next = inner === 3 || inner === 4 ? tag[1] : skipValue(buf, tag[1], end, inner);
    if (next === null) return null;
    pos = next;
  }
  return pos;
}
