// lockKeys on PostgreSQL (TEST_DATABASE_URL): advisory locks, one statement for all keys,
// held to the end of the transaction. A transaction that shares a key with another waits for
// it; one with other keys does not. (SQLite runs one writing transaction at a time: nothing to lock.)
import { describe, expect, it } from "vitest";
import { lockKeys, sqlTransaction, transaction, type Sql } from "@/lib/db/sql";
import { testPostgresUrl } from "../support/database";
import { waitingAdvisoryLocks } from "../support/advisoryLocks";
import { eventually } from "../support/waitFor";
import { useTestDb } from "../support/testDb";

const db = useTestDb("locks");

const waiting = () => waitingAdvisoryLocks(db());

/**
 * A transaction that takes its locks (`lock`), then holds them until `release()`, then runs
 * `after` and commits; `locked` resolves once it holds them.
 */
function holder(lock: (sql: Sql) => Promise<void>, after: (sql: Sql) => Promise<void> = async () => {}) {
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  let onLocked = () => {};
  const locked = new Promise<void>((r) => (onLocked = r));
  const done = sqlTransaction(db(), async (sql) => {
    await lock(sql);
    onLocked();
    await held;
    await after(sql);
  });
  return { locked, done, release: () => release() };
}

/** Waits until one transaction waits for an advisory lock, checks `check`, then lets `h` go. */
async function whileOneWaits(what: string, h: { release: () => void }, check: () => void = () => {}) {
  try {
    await eventually(`${what} (advisory locks waited for)`, waiting, (n) => n === 1, { timeoutMs: 10_000, everyMs: 20 });
    check();
  } finally {
    h.release();
  }
}

describe.runIf(testPostgresUrl())("lockKeys", () => {
  it("makes a transaction that shares a key wait for the holder's commit; other keys pass", async () => {
    const events: string[] = [];
    const h = holder((sql) => lockKeys(sql, ["k2", "k1", "k2"]), async () => void events.push("holder commits"));
    await h.locked;
    // other keys: no wait (through Prisma's transaction, as event ingest takes them)
    await transaction(db(), (sql) => lockKeys(sql, ["k3", "k4"]));
    const sharer = sqlTransaction(db(), async (sql) => {
      await lockKeys(sql, ["k9", "k1"]);
      events.push("sharer locked");
    });
    await whileOneWaits("the transaction sharing a key to wait for its lock", h, () => expect(events).toEqual([]));
    await Promise.all([h.done, sharer]);
    expect(events).toEqual(["holder commits", "sharer locked"]);
    expect(await waiting()).toBe(0);
  });

  it("takes the key for every key alone for a transaction of more than 1,000 keys: any other waits for it, and it for any other", async () => {
    const many = Array.from({ length: 1_001 }, (_, i) => `wide-${i}`);
    const events: string[] = [];
    const wide = holder(
      (sql) => lockKeys(sql, many),
      async (sql) => {
        await lockKeys(sql, ["after"], ["more"]); // held already: nothing more to take
        events.push("wide commits");
      },
    );
    await wide.locked;
    const other = sqlTransaction(db(), async (sql) => {
      await lockKeys(sql, [], ["unrelated"]);
      events.push("other locked");
    });
    await whileOneWaits("a transaction of one unrelated key to wait", wide, () => expect(events).toEqual([]));
    await Promise.all([wide.done, other]);
    expect(events).toEqual(["wide commits", "other locked"]);
    // the other way round: a holder of a few keys keeps a wide transaction waiting
    const few = holder((sql) => lockKeys(sql, ["k-few"]));
    await few.locked;
    const wideAgain = sqlTransaction(db(), (sql) => lockKeys(sql, many));
    await whileOneWaits("the wide transaction to wait", few);
    await Promise.all([few.done, wideAgain]);
    expect(await waiting()).toBe(0);
  });
});
