// The example payloads the README points to must stay valid ingest input.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJsonExact } from "@/lib/wire/json";
import { parseBatch } from "@/lib/api/validation";
import { normalizeExchange } from "@/lib/ingest/adapters";
import { callSchema, eventSchema, httpExchangeSchema } from "@/lib/ingest/schema";

const read = (name: string) => parseJsonExact(fs.readFileSync(path.join(__dirname, "../../examples", name), "utf8"));

describe("README example payloads", () => {
  it("call.json is a valid normalized call with exact nanoseconds", () => {
    const [call] = parseBatch(callSchema, read("call.json"));
    expect(call.start_ns).toBe(1767268800000000000n);
    expect(call.input_messages).toHaveLength(3);
  });

  it("exchange-anthropic-529.json normalizes to a 529 without the API key", () => {
    const [exchange] = parseBatch(httpExchangeSchema, read("exchange-anthropic-529.json"));
    const call = normalizeExchange(exchange);
    expect(call.status_code).toBe(529);
    expect(JSON.stringify(call, (_k, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain("stripped-before-storage");
  });

  it("events.json holds one event of each kind", () => {
    expect(parseBatch(eventSchema, read("events.json")).map((e) => e.kind)).toEqual(["turn_end", "tool_result", "process_exit"]);
  });
});
