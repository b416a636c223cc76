// Which OTLP exports are prepared on the ingest worker (lib/api/ingestOffload.ts): large ones, and
// small ones of many messages — 256 KiB of empty spans are 131,000 spans, too much work for the
// request thread.
import { describe, expect, it } from "vitest";
import { OFFLOAD_BYTES, OFFLOAD_MESSAGES, otlpGoesToWorker } from "@/lib/api/ingestOffload";

/** A varint-length-delimited protobuf field (wire type 2). */
function field(number: number, content: Buffer): Buffer {
  const length: number[] = [];
  let n = content.length;
  do {
    length.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...length]), content]);
}

/** ExportTraceServiceRequest { resource_spans { scope_spans { spans: `n` empty spans } } }. */
const emptySpans = (n: number) => field(1, field(2, Buffer.concat(Array.from({ length: n }, () => field(2, Buffer.alloc(0))))));

const jsonSpans = (n: number) =>
  Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: Array.from({ length: n }, () => ({})) }] }] }));

describe("OTLP exports prepared on the worker", () => {
  it("a small protobuf export of many spans goes to the worker, one of a few stays", () => {
    const many = emptySpans(3 * OFFLOAD_MESSAGES);
    expect(many.length).toBeLessThan(OFFLOAD_BYTES);
    expect(otlpGoesToWorker("protobuf", many)).toBe(true);
    expect(otlpGoesToWorker("protobuf", emptySpans(10))).toBe(false);
  });

  it("a small JSON export of many objects goes to the worker, one of a few stays", () => {
    const many = jsonSpans(3 * OFFLOAD_MESSAGES);
    expect(many.length).toBeLessThan(OFFLOAD_BYTES);
    expect(otlpGoesToWorker("json", many)).toBe(true);
    expect(otlpGoesToWorker("json", jsonSpans(10))).toBe(false);
    expect(otlpGoesToWorker("json", Buffer.from("not json"))).toBe(false);
  });

  it("any export from OFFLOAD_BYTES on goes to the worker", () => {
    expect(otlpGoesToWorker("json", Buffer.alloc(OFFLOAD_BYTES, 0x20))).toBe(true);
  });
});
