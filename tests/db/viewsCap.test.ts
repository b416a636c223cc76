// Saved views are bounded per owner: every inbox lists the shared ones with a count each, so one
// caller (a viewer, a read-scoped token) creating views without end would slow everyone's menu.
import { describe, expect, it } from "vitest";
import { createView, deleteView, listViews, MAX_VIEWS_PER_OWNER } from "@/lib/db/queries/views";
import { DomainError } from "@/lib/domain/errors";
import { nowNs } from "@/lib/domain/time";
import { useTestDb } from "../support/testDb";

const database = useTestDb("views-cap");

describe("saved views per owner", () => {
  it(`stop at ${MAX_VIEWS_PER_OWNER} (409, nothing written); one deleted makes room; another owner is not held back`, async () => {
    const db = database();
    const caller = { key: "token:tok-read", name: "token:reader", me: "reader", admin: false };
    const ids: string[] = [];
    for (let i = 0; i < MAX_VIEWS_PER_OWNER; i++) ids.push((await createView(db, { name: `v${i}`, query: "severity=critical", shared: i % 2 === 0 }, caller, nowNs())).id);
    const refused = await createView(db, { name: "one too many", query: "", shared: true }, caller, nowNs()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ status: 409, message: expect.stringMatching(/delete one first/) });
    expect(await db.savedView.count({ where: { ownerKey: caller.key } })).toBe(MAX_VIEWS_PER_OWNER);
    await deleteView(db, ids[0], caller);
    await createView(db, { name: "room again", query: "", shared: false }, caller, nowNs());
    const other = { key: "user:ana", name: "user:ana@example.com", me: "ana@example.com", admin: false };
    await createView(db, { name: "ana's", query: "", shared: false }, other, nowNs());
    expect((await listViews(db, other, nowNs())).map((v) => v.name)).toContain("ana's");
  });
});
