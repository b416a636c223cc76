// Turns stored before their ids were scoped to the session (migration turn_label): a turn under
// way across the upgrade keeps the id as its sender gave it, and its turn_end still ends it and
// withdraws its empty answers — in its own session only.
import { describe, expect, it } from "vitest";
import { configDefaults } from "@/lib/config/load";
import { buildInterruption } from "@/lib/ingest/interruptions";
import { ingestEvents } from "@/lib/ingest/storeEvents";
import { useTestDb } from "../support/testDb";

const database = useTestDb("legacy-turns");
const cfg = configDefaults().detection;
const T = 1_800_000_000_000_000_000n;

describe("a turn stored before the Turn ids were scoped", () => {
  it("is ended by its turn_end, and its empty answer withdrawn; another session's empty answer under that turn id is left alone", async () => {
    const db = database();
    const row = (session: string) => ({ id: "t-legacy", sessionId: session, conversationId: "c", firstSeenNs: T, lastSeenNs: T, callCount: 1 });
    await db.turn.create({ data: row("s-legacy") });
    const empty = buildInterruption("i-legacy-empty", "empty_response", { status_code: 200 }, T, { sessionId: "s-legacy", turnId: "t-legacy", agentName: "a", model: "m" }, cfg);
    const other = buildInterruption("i-other-empty", "empty_response", { status_code: 200 }, T, { sessionId: "s-other", turnId: "t-legacy", agentName: "a", model: "m" }, cfg);
    await db.interruption.createMany({ data: [empty, other] });
    const result = await ingestEvents(db, [{ kind: "turn_end", session_id: "s-legacy", turn_id: "t-legacy", reason: "steered", at_ns: T + 1n }], cfg);
    expect(result).toMatchObject({ withdrawn: 1 });
    expect(await db.turn.findUniqueOrThrow({ where: { id: "t-legacy" } })).toMatchObject({ endReason: "steered", endedAtNs: T + 1n });
    expect(await db.interruption.findUniqueOrThrow({ where: { id: "i-legacy-empty" } })).toMatchObject({ status: "resolved" });
    expect(await db.interruption.findUniqueOrThrow({ where: { id: "i-other-empty" } })).toMatchObject({ status: "open" });
  });
});
