// Ingest bodies are prepared on the worker thread (lib/api/ingestWorker.ts, loaded from the source
// tree through tsx). A large body is moved there, not copied, and handed back with the answer:
// preparing the batch again whole (after a ThinHistoryError) reads the same bytes.
import { describe, expect, it } from "vitest";
import { prepareIngest } from "@/lib/api/ingestOffload";
import type { Prepared } from "@/lib/ingest/prepare";

const call = (i: number, text: string) => ({
  call_id: `offload-${i}`,
  conversation_id: "offload",
  start_ns: "1767268800000000000",
  input_messages: [{ role: "user", parts: [{ type: "text", content: text }] }],
});

type CallsBatch = { calls: Prepared[]; whole?: () => Promise<Prepared[]> };

describe("prepareIngest on the worker", () => {
  it("moves a large body to the worker and gets it back for the whole preparation", async () => {
    const body = Buffer.concat([Buffer.from(JSON.stringify([call(1, "hello"), call(2, "x".repeat(100_000))]))]);
    const pending = prepareIngest("calls", body);
    expect(body.buffer.byteLength).toBe(0); // moved, not copied
    const batch = (await pending) as CallsBatch;
    expect(batch.calls.map((c) => c.call.call_id)).toEqual(["offload-1", "offload-2"]);
    const whole = await batch.whole!();
    expect(whole.map((c) => [c.call.call_id, c.thinInput])).toEqual([["offload-1", 0], ["offload-2", 0]]);
    expect(whole[1].input[0].parts).toContain("x".repeat(1000));
  });

  it("copies a small body (a slice of Node's shared pool) and leaves it readable", async () => {
    const body = Buffer.from(JSON.stringify([call(3, "small")]));
    const batch = (await prepareIngest("calls", body)) as CallsBatch;
    expect(body.toString()).toContain("offload-3");
    expect(batch.calls[0].call.call_id).toBe("offload-3");
  });

  it("answers a malformed body with a 400 naming the fault", async () => {
    await expect(prepareIngest("calls", Buffer.concat([Buffer.from(`[${JSON.stringify(call(4, "y".repeat(100_000)))} {}]`)]))).rejects.toMatchObject({ status: 400 });
  });
});
