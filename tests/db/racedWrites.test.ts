// Two requests racing on one record (a double-clicked delete, two sign-ups with one email): both
// pass their checks, then one writes first. The other gets the answer it would have had a moment
// later — 404 or 409 — instead of Prisma's error as a 500. On a fresh database (SQLite, or
// PostgreSQL with TEST_DATABASE_URL); the two run side by side in one process, as two requests do.
import { describe, expect, it } from "vitest";
import { createWebhook, deleteWebhook } from "@/lib/alerts/webhooks";
import { createUser, deleteUser } from "@/lib/auth/users";
import { createView, deleteView } from "@/lib/db/queries/views";
import { DomainError } from "@/lib/domain/errors";
import { nowNs } from "@/lib/domain/time";
import { useTestDb } from "../support/testDb";

const database = useTestDb("raced");

/** How each of two runs side by side ended: "ok", or the domain error's status (anything else is thrown). */
async function race(run: () => Promise<unknown>): Promise<(number | "ok")[]> {
  const ends = await Promise.allSettled([run(), run()]);
  return ends
    .map((e) => {
      if (e.status === "fulfilled") return "ok" as const;
      if (e.reason instanceof DomainError) return e.reason.status;
      throw e.reason;
    })
    .sort();
}

describe("two requests racing on one record", () => {
  const db = () => database();
  it("a view deleted twice: one deletes it, the other is told it is gone", async () => {
    const caller = { key: "user:ana", name: "user:ana@example.com", me: "ana@example.com", admin: false };
    const view = await createView(db(), { name: "mine", query: "", shared: false }, caller, nowNs());
    expect(await race(() => deleteView(db(), view.id, caller))).toEqual([404, "ok"]);
  });

  it("a webhook deleted twice: the same", async () => {
    const hook = await createWebhook(db(), { name: "twice", url: "http://r.invalid/twice", kind: "generic", min_severity: "high", types: [], agents: [], repeat_interval_secs: 0, enabled: true }, "test");
    expect(await race(() => deleteWebhook(db(), hook.id))).toEqual([404, "ok"]);
  });

  it("a user deleted twice, and two users added with one email: one each, the other refused", async () => {
    const admin = await createUser(db(), { email: "admin@example.com", role: "admin", password: "correct horse" });
    const user = await createUser(db(), { email: "bo@example.com", role: "viewer", password: "correct horse" });
    expect(await race(() => db().$transaction((tx) => deleteUser(tx, user.id)))).toEqual([404, "ok"]);
    expect(await race(() => createUser(db(), { email: "cy@example.com", role: "viewer", password: "correct horse" }))).toEqual([409, "ok"]);
    expect(await db().user.count({ where: { email: "cy@example.com" } })).toBe(1);
    expect(admin.role).toBe("admin");
  });
});
