// Triage racing triage on one interruption. On PostgreSQL (READ COMMITTED) two requests can both
// read a row before either updates it; the one whose update finds the row changed must judge it
// again on what it is now, never answer success for a change it dropped. The other request is
// held open in a transaction of its own until the first waits on its row lock.
import { describe, expect, it } from "vitest";
import { configDefaults } from "@/lib/config/load";
import { DomainError } from "@/lib/domain/errors";
import { nowNs } from "@/lib/domain/time";
import { buildInterruption } from "@/lib/ingest/interruptions";
import { activityOf, applyToMany, applyToOne } from "@/lib/triage/lifecycle";
import { waitingRowLocks } from "../support/advisoryLocks";
import { testPostgresUrl } from "../support/database";
import { useTestDb } from "../support/testDb";
import { eventually } from "../support/waitFor";

const database = useTestDb("triage-races");
const cfg = configDefaults().detection;
let seq = 0;

async function stored() {
  const row = buildInterruption(`race-${++seq}`, "rate_limit", { status_code: 429 }, nowNs(), { agentName: "racer", model: "m" }, cfg);
  return database().interruption.create({ data: row });
}

/** Runs `sql` in a transaction held open until `during` (started once it holds the row) has waited on it; then commits. */
async function whileHeld<T>(sql: string, during: () => Promise<T>): Promise<T> {
  const db = database();
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let started!: (p: Promise<T>) => void;
  const running = new Promise<Promise<T>>((r) => (started = r));
  const holder = db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(sql);
      started(during());
      await released;
    },
    { timeout: 20_000 },
  );
  await eventually("the request to wait on the held row", () => waitingRowLocks(db), (n) => n > 0);
  release();
  await holder;
  return running.then((p) => p);
}

describe.skipIf(!testPostgresUrl())("triage racing triage (PostgreSQL)", () => {
  it("a resolve that read the row before an assignment committed still resolves it, and keeps the assignment", async () => {
    const i = await stored();
    const after = await whileHeld(`UPDATE "Interruption" SET "assignee" = 'bo' WHERE "id" = '${i.id}'`, () => applyToOne(database(), i.id, { action: "resolve", actor: "ana" }));
    expect(after).toMatchObject({ status: "resolved", resolvedBy: "ana", assignee: "bo" });
    expect((await activityOf(database(), i.id)).map((a) => a.action)).toEqual(["resolve"]);
  });

  it("an assignment racing an acknowledge is kept, and so is the acknowledge", async () => {
    const i = await stored();
    const after = await whileHeld(`UPDATE "Interruption" SET "status" = 'acknowledged', "acknowledgedBy" = 'cy' WHERE "id" = '${i.id}'`, () =>
      applyToOne(database(), i.id, { action: "assign", actor: "ana", assignee: "bo" }),
    );
    expect(after).toMatchObject({ status: "acknowledged", acknowledgedBy: "cy", assignee: "bo" });
  });

  it("an acknowledge that read the row open, before a resolve committed, is refused as for a resolved one (409), and changes nothing", async () => {
    const i = await stored();
    const ack = await whileHeld(`UPDATE "Interruption" SET "status" = 'resolved', "resolvedBy" = 'cy' WHERE "id" = '${i.id}'`, () =>
      applyToOne(database(), i.id, { action: "acknowledge", actor: "ana" }).then(
        () => "ok",
        (e: unknown) => (e instanceof DomainError ? e.status : e),
      ),
    );
    expect(ack).toBe(409);
    expect(await database().interruption.findUnique({ where: { id: i.id } })).toMatchObject({ status: "resolved", acknowledgedBy: null });
    expect(await activityOf(database(), i.id)).toEqual([]);
  });
});

describe("bulk triage", () => {
  it("counts an id given twice once, though the repeats fall in different chunks of the request", async () => {
    const rows = [];
    for (let n = 0; n < 3; n++) rows.push(await stored());
    const ids = [rows[0].id, ...Array.from({ length: 499 }, (_, n) => `absent-${n}`), rows[0].id, rows[1].id, rows[2].id];
    expect(await applyToMany(database(), ids, { action: "resolve", actor: "ana" })).toEqual({ matched: 3, changed: 3 });
    expect(await activityOf(database(), rows[0].id)).toHaveLength(1);
  });
});
