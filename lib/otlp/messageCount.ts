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
    if (wire === 0) {
      const skipped = varint(buf, pos, end);
      if (!skipped) return false;
      pos = skipped[1];
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const length = varint(buf, pos, end);
      if (!length || length[1] + length[0] > end) return false;
      pos = length[1];
      const field = current.fieldsById[Math.floor(tag[0] / 8)];
      if (field?.resolvedType instanceof Type) {
        if (--left < 0) return true;
        if (stack.length <= 100) {
          stack.push([field.resolvedType, pos + length[0]]); // its fields next; the stack pops back to here at its end
          continue;
        }
      }
      pos += length[0];
    } else return false;
  }
  return false;
}
